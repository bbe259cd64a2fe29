import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { ERROR_PAGE_STYLES } from '../../server/http/error-page';
import { styleHash } from '../../server/http/security-headers';
import { ManualClock } from './support/manual-clock';
import { rawExchange, rawRequest } from './support/raw-http';
import { ADMIN_TOKEN, startServer, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

const NAVIGATION = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const SCRIPT = 'main-ABCDEFGH.js';

/** Built assets enough for the routes that serve them: a script and the console's page. */
function assetsFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-assets-'));
  writeFileSync(path.join(dir, SCRIPT), 'export {};');
  writeFileSync(path.join(dir, 'admin.html'), '<!doctype html><title>Console</title>');
  return dir;
}

type Headers = Record<string, string | string[] | undefined>;

async function get(server: StartedWithOrigin, target: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers }> {
  const answer = await request(`${server.url}${target}`, { headers });
  await answer.body.dump();
  return { status: answer.statusCode, headers: answer.headers };
}

/** The directives of a Content-Security-Policy, by name. */
function directives(policy: unknown): Record<string, string> {
  return Object.fromEntries(
    String(policy)
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values.join(' ')]),
  );
}

/** What every page the waiting room writes must carry. */
function expectPageHeaders(headers: Headers, referrerPolicy = 'no-referrer'): Record<string, string> {
  const policy = directives(headers['content-security-policy']);
  expect(policy['script-src']).toBe("'self'");
  expect(policy['frame-ancestors']).toBe("'none'");
  expect(policy['object-src']).toBe("'none'");
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['referrer-policy']).toBe(referrerPolicy);
  expect(headers['x-content-type-options']).toBe('nosniff');
  return policy;
}

describe('the security headers of what the waiting room answers itself', () => {
  let server: StartedWithOrigin;

  beforeAll(async () => {
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock: new ManualClock() }, { assetsDir: assetsFolder() });
    await new Visitor(server.url).get('/checkout');
  });
  afterAll(() => server.close());

  it('should give the waiting page a strict policy: scripts from itself only, never framed, no referrer to other sites', async () => {
    const held = await get(server, '/checkout?item=42', { accept: NAVIGATION, 'sec-fetch-mode': 'navigate' });

    expect(held.status).toBe(200);
    expect(String(held.headers['content-type'])).toMatch(/^text\/html/);
    expectPageHeaders(held.headers, 'same-origin');
  });

  it('should give the error pages the same, with their own inline style allowed by its hash alone', async () => {
    const notFound = await get(server, '/queue/nowhere', { accept: NAVIGATION });

    expect(notFound.status).toBe(404);
    const policy = expectPageHeaders(notFound.headers);
    expect(policy['style-src']).toBe(`'self' ${styleHash(ERROR_PAGE_STYLES[0])}`);
    expect(policy['style-src']).not.toContain('unsafe-inline');
  });

  it('should give an error page written before routing the same headers', async () => {
    const answer = await rawExchange(server.port, rawRequest('GET', '/checkout', { accept: NAVIGATION }).replace('HTTP/1.1', 'HTTX/1.1'));

    expect(answer.status).toBe(400);
    expectPageHeaders(answer.headers);
  });

  it.each([
    ['an asset', `/assets/${SCRIPT}`, {}, 200],
    ['a JSON answer', '/queue/info/00000000-0000-4000-8000-000000000000', {}, 404],
    ['a held API client’s 503', '/checkout/api', { accept: 'application/json' }, 503],
    ['an admin answer', '/admin/stats', { authorization: `Bearer ${ADMIN_TOKEN}` }, 200],
    ['a refused admin call', '/admin/stats', {}, 401],
    ['the metrics', '/metrics', { authorization: `Bearer ${ADMIN_TOKEN}` }, 200],
  ])('should send nosniff with %s', async (_what, target, headers, status) => {
    const answer = await get(server, target, headers);

    expect(answer.status).toBe(status);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['content-security-policy']).toBeUndefined();
  });

  it('should keep the console’s own policy, adding nosniff', async () => {
    const console = await get(server, '/admin/');

    expect(console.status).toBe(200);
    expect(console.headers['x-content-type-options']).toBe('nosniff');
    expect(directives(console.headers['content-security-policy'])['connect-src']).toBe("'self' ws: wss:");
    expect(console.headers['x-frame-options']).toBe('DENY');
  });

  it('should add none of them to what the origin answers', async () => {
    const page = await get(server, '/shop', { accept: NAVIGATION });
    const missing = await get(server, '/no-such-page-at-the-origin', { accept: NAVIGATION });

    for (const answer of [page, missing]) {
      expect(answer.headers['content-security-policy']).toBeUndefined();
      expect(answer.headers['x-frame-options']).toBeUndefined();
      expect(answer.headers['referrer-policy']).toBeUndefined();
      expect(answer.headers['x-content-type-options']).toBeUndefined();
    }
    expect(server.origin.received.map((one) => one.url)).toEqual(expect.arrayContaining(['/shop', '/no-such-page-at-the-origin']));
  });
});
