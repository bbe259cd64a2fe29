import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { request } from 'undici';
import { startServer, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

const SCRIPT = 'main-RYBGRLOA.js';
const SCRIPT_BYTES = Buffer.from(`export const lines = [${Array.from({ length: 200 }, (_, i) => `"line ${i}"`).join(',')}];\n`);
const UNCOMPRESSED = 'plain-ABCDEFGH.js';
/** The script as built, its source map named. */
const original = () => Buffer.concat([SCRIPT_BYTES, Buffer.from(`//# sourceMappingURL=${SCRIPT}.map`)]);

/**
 * An assets folder as `build.mjs` leaves it: each file with its Brotli and gzip copies beside it,
 * the template, and a file the build never compressed.
 */
function assetsFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-assets-'));
  const write = (name: string, bytes: Buffer) => {
    writeFileSync(path.join(dir, name), bytes);
    writeFileSync(path.join(dir, `${name}.br`), zlib.brotliCompressSync(bytes));
    writeFileSync(path.join(dir, `${name}.gz`), zlib.gzipSync(bytes, { level: 9 }));
  };
  write(SCRIPT, original());
  write(`${SCRIPT}.map`, Buffer.from('{"version":3,"sources":["../src/main.tsx"],"mappings":""}'));
  write('notes.txt', Buffer.from('plain notes '.repeat(50)));
  writeFileSync(path.join(dir, UNCOMPRESSED), 'console.log(1);');
  writeFileSync(path.join(dir, 'waiting.html'), '<script id="waiting-room-config" type="application/json">{}</script>');
  mkdirSync(path.join(dir, 'sub'));
  writeFileSync(path.join(dir, 'sub', 'inner.js'), 'console.log(2);');
  return dir;
}

/** One request as sent, the body as received (never decompressed). */
async function get(server: StartedWithOrigin, target: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' | 'POST' = 'GET') {
  const answer = await request(`${server.url}${target}`, { method, headers });
  const body = Buffer.from(await answer.body.arrayBuffer());
  const header = (name: string) => {
    const value = answer.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return { status: answer.statusCode, header, body };
}

/** The real server in front of a fresh assets folder, with `env`, for the tests of one `describe`. */
function serveAssets(env: Record<string, string> = {}): () => StartedWithOrigin {
  let dir: string | undefined;
  let server: StartedWithOrigin | undefined;
  beforeAll(async () => {
    dir = assetsFolder();
    server = await startServer(env, {}, { assetsDir: dir });
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => server!;
}

describe('assets: the copy each browser accepts, negotiated by Accept-Encoding', () => {
  const server = serveAssets();

  it('should send the Brotli copy to a browser that accepts it, which decompresses to the file', async () => {
    const answer = await get(server(), `/assets/${SCRIPT}`, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(answer.status).toBe(200);
    expect(answer.header('content-encoding')).toBe('br');
    expect(answer.header('content-type')).toBe('text/javascript; charset=utf-8');
    expect(answer.header('vary')).toMatch(/accept-encoding/i);
    expect(Number(answer.header('content-length'))).toBe(answer.body.length);
    expect(answer.body.length).toBeLessThan(original().length / 3);
    expect(zlib.brotliDecompressSync(answer.body)).toEqual(original());
  });

  it('should send the gzip copy to a browser that accepts gzip only', async () => {
    const answer = await get(server(), `/assets/${SCRIPT}`, { 'accept-encoding': 'gzip, deflate' });
    expect(answer.header('content-encoding')).toBe('gzip');
    expect(answer.header('content-type')).toBe('text/javascript; charset=utf-8');
    expect(zlib.gunzipSync(answer.body)).toEqual(original());
  });

  it.each([
    ['no Accept-Encoding', {}],
    ['identity only', { 'accept-encoding': 'identity' }],
    ['Brotli and gzip refused with q=0', { 'accept-encoding': 'br;q=0, gzip;q=0' }],
  ])('should send the file as it is for %s, still saying it varies', async (_, headers) => {
    const answer = await get(server(), `/assets/${SCRIPT}`, headers);
    expect(answer.status).toBe(200);
    expect(answer.header('content-encoding')).toBeUndefined();
    expect(answer.header('vary')).toMatch(/accept-encoding/i);
    expect(answer.body).toEqual(original());
  });

  it.each([
    ['br;q=0.1, gzip;q=0.9', 'gzip'],
    ['gzip;q=0.5, br', 'br'],
    ['gzip, br;q=0', 'gzip'],
    ['*', 'gzip'],
  ])('should follow the q-values of "%s": %s', async (acceptEncoding, encoding) => {
    const answer = await get(server(), `/assets/${SCRIPT}`, { 'accept-encoding': acceptEncoding });
    expect(answer.header('content-encoding')).toBe(encoding);
  });

  it('should send a file the build did not compress as it is, to any browser', async () => {
    const answer = await get(server(), `/assets/${UNCOMPRESSED}`, { 'accept-encoding': 'gzip, br' });
    expect(answer.status).toBe(200);
    expect(answer.header('content-encoding')).toBeUndefined();
    expect(answer.header('vary')).toMatch(/accept-encoding/i);
    expect(answer.body.toString()).toBe('console.log(1);');
  });

  it('should answer HEAD with the headers GET would send, and no body', async () => {
    const headers = { 'accept-encoding': 'br' };
    const [head, whole] = await Promise.all([get(server(), `/assets/${SCRIPT}`, headers, 'HEAD'), get(server(), `/assets/${SCRIPT}`, headers)]);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of ['content-encoding', 'content-type', 'content-length', 'etag', 'cache-control', 'vary']) {
      expect([name, head.header(name)]).toEqual([name, whole.header(name)]);
    }
  });

  it("should answer 304 to a browser that holds the same copy's ETag, and tell the copies apart", async () => {
    const br = await get(server(), `/assets/${SCRIPT}`, { 'accept-encoding': 'br' });
    const gzip = await get(server(), `/assets/${SCRIPT}`, { 'accept-encoding': 'gzip' });
    expect(br.header('etag')).toBeTruthy();
    expect(br.header('etag')).not.toBe(gzip.header('etag'));

    const again = await get(server(), `/assets/${SCRIPT}`, { 'accept-encoding': 'br', 'if-none-match': br.header('etag')! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.header('content-encoding')).toBe('br');
    const other = await get(server(), `/assets/${SCRIPT}`, { 'accept-encoding': 'gzip', 'if-none-match': br.header('etag')! });
    expect(other.status).toBe(200);
    expect(other.header('content-encoding')).toBe('gzip');
  });
});

describe('assets: caching', () => {
  const server = serveAssets({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });

  it('should let browsers keep a hashed file for a year, whichever copy, and revalidate the others', async () => {
    for (const encoding of ['br', 'gzip', 'identity']) {
      const hashed = await get(server(), `/assets/${SCRIPT}`, { 'accept-encoding': encoding });
      expect([encoding, hashed.header('cache-control')]).toEqual([encoding, 'public, max-age=31536000, immutable']);
    }
    const plain = await get(server(), '/assets/notes.txt', { 'accept-encoding': 'br' });
    expect(plain.header('content-encoding')).toBe('br');
    expect(plain.header('cache-control')).toBe('no-cache');
  });

  it('should never let the waiting page be stored: it carries one visitor’s config', async () => {
    await new Visitor(server().url).get('/checkout');
    const held = await get(server(), '/checkout', { accept: 'text/html', 'accept-encoding': 'gzip, br', 'sec-fetch-mode': 'navigate' });
    expect(held.status).toBe(200);
    expect(held.body.toString()).toContain('id="waiting-room-config"');
    expect(held.header('cache-control')).toBe('no-store');
  });
});

describe('assets: what is not served', () => {
  const server = serveAssets();

  it.each([
    ['a source map (PUBLIC_SOURCE_MAPS is off)', `/assets/${SCRIPT}.map`],
    ['a compressed copy of a source map', `/assets/${SCRIPT}.map.br`],
    ['a compressed copy by its own name', `/assets/${SCRIPT}.br`],
    ['the waiting page template', '/assets/waiting.html'],
    ['the folder itself (no listing)', '/assets/'],
    ['a folder inside it', '/assets/sub'],
    ['a missing file', '/assets/nothing.js'],
  ])('should answer 404 in the error contract for %s', async (_, target) => {
    for (const encoding of ['br', 'identity']) {
      const answer = await get(server(), target, { 'accept-encoding': encoding });
      expect([target, encoding, answer.status]).toEqual([target, encoding, 404]);
      expect(JSON.parse(answer.body.toString()).error.code).toBe('not_found');
    }
  });

  it('should refuse a way out of the folder', async () => {
    // An encoded slash is refused before routing, as ambiguous (server/domain/request-target.ts).
    expect((await get(server(), '/assets/..%2f..%2fpackage.json')).status).toBe(400);
    // Dot segments are resolved before routing: this names /package.json, which is not an asset.
    const dots = await get(server(), '/assets/%2e%2e/package.json');
    expect(dots.body.toString()).not.toContain('"name": "waiting-room"');
  });

  it('should answer 405 with Allow to a method other than GET and HEAD', async () => {
    const answer = await get(server(), `/assets/${SCRIPT}`, {}, 'POST');
    expect(answer.status).toBe(405);
    expect(answer.header('allow')).toBe('GET, HEAD');
    expect(JSON.parse(answer.body.toString()).error.code).toBe('method_not_allowed');
  });
});

describe('assets: source maps when PUBLIC_SOURCE_MAPS=true', () => {
  const server = serveAssets({ PUBLIC_SOURCE_MAPS: 'true' });

  it('should serve them, compressed too', async () => {
    const map = await get(server(), `/assets/${SCRIPT}.map`, { 'accept-encoding': 'br' });
    expect(map.status).toBe(200);
    expect(map.header('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(zlib.brotliDecompressSync(map.body).toString()).sources).toEqual(['../src/main.tsx']);
  });
});
