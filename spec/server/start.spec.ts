import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PageTemplateError } from '../../server/page';
import { start } from '../../server/start';
import { RawSocket } from './support/realtime';
import { startServer, testConfig } from './support/server';

const ROOT = path.resolve(__dirname, '../..');

describe('start()', () => {
  it('should refuse to start without the built waiting page, saying how to build it', async () => {
    const missing = path.join(tmpdir(), 'no-such-dir', 'waiting.html');

    await expect(start(testConfig({}, { pageHtmlPath: missing }))).rejects.toThrow(PageTemplateError);
    await expect(start(testConfig({}, { pageHtmlPath: missing }))).rejects.toThrow(/node build\.mjs/);
  });

  it('should refuse a waiting page without exactly one config element', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-bad-page-'));
    const file = path.join(dir, 'waiting.html');
    writeFileSync(file, '<html><body>no config here</body></html>');

    await expect(start(testConfig({}, { pageHtmlPath: file }))).rejects.toThrow(/exactly one <script id="waiting-room-config"/);
  });

  it('should serve the built assets, hashed names for good and nothing outside the folder', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-assets-'));
    writeFileSync(path.join(dir, 'main-RYBGRLOA.js'), 'console.log(1);');
    writeFileSync(path.join(dir, 'notes.txt'), 'plain');
    writeFileSync(path.join(dir, 'waiting.html'), '<script id="waiting-room-config" type="application/json">{}</script>');
    const server = await startServer({}, {}, { assetsDir: dir });
    try {
      const hashed = await fetch(`${server.url}/assets/main-RYBGRLOA.js`);
      const plain = await fetch(`${server.url}/assets/notes.txt`);
      const template = await fetch(`${server.url}/assets/waiting.html`);
      const escape = await fetch(`${server.url}/assets/..%2f..%2fpackage.json`);
      const missing = await fetch(`${server.url}/assets/nothing.js`);

      expect(hashed.status).toBe(200);
      expect(hashed.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(hashed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await hashed.text()).toBe('console.log(1);');
      expect(plain.headers.get('cache-control')).toBe('no-cache');
      // An encoded slash is refused before routing, as ambiguous (server/request-target.ts).
      expect([template.status, escape.status, missing.status]).toEqual([404, 400, 404]);
    } finally {
      await server.close();
    }
  });

  it.each([
    ['by default', {}, 404],
    ['with PUBLIC_SOURCE_MAPS=true', { PUBLIC_SOURCE_MAPS: 'true' }, 200],
  ])('should serve the source maps only when asked to: %s', async (_when, env, status) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-assets-'));
    writeFileSync(path.join(dir, 'main-RYBGRLOA.js'), 'console.log(1);\n//# sourceMappingURL=main-RYBGRLOA.js.map');
    writeFileSync(path.join(dir, 'main-RYBGRLOA.js.map'), '{"version":3,"sources":["../src/main.tsx"],"mappings":""}');
    const server = await startServer(env, {}, { assetsDir: dir });
    try {
      const script = await fetch(`${server.url}/assets/main-RYBGRLOA.js`);
      const map = await fetch(`${server.url}/assets/main-RYBGRLOA.js.map`);

      expect(script.status).toBe(200);
      expect(map.status).toBe(status);
    } finally {
      await server.close();
    }
  });

  it('should close everything: HTTP, realtime clients (told to reconnect) and the port', async () => {
    const server = await startServer();
    const socket = await RawSocket.open(server);
    await socket.socketId();

    await server.close();

    expect((await socket.closed).code).toBe(4200);
    await expect(fetch(`${server.url}/`)).rejects.toThrow();
  });

  it('should close within its grace even with a request that never finishes', async () => {
    const server = await startServer();
    const socket = connect(server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    // Headers never ended: the connection is not idle, so only the grace period can close it.
    socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n');
    const ended = new Promise((resolve) => socket.once('close', resolve));

    const began = Date.now();
    await server.close();

    await ended;
    expect(Date.now() - began).toBeLessThan(10_000);
  }, 15_000);
});

describe('server/main.ts', () => {
  it('should exit with a clear message on a bad setting', async () => {
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, ACTIVE_LIMIT: 'lots', PORT: '0' },
    });

    await expect(run).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('Configuration error: ACTIVE_LIMIT must be a whole number from 1 to 1000000; got "lots".'),
    });
  });
});
