import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PageTemplateError } from '../../server/http/page';
import { ConfigError } from '../../server/process/config';
import { start } from '../../server/process/start';
import { inheritedEnvironment } from '../support/server-environment';
import { RawSocket } from './support/realtime';
import { startServer, testConfig } from './support/server';
import { builtServerScript, runBuildDir } from '../support/run-build';

describe('start()', () => {
  it('should refuse to start without the built waiting page, saying how to build it', async () => {
    const missing = path.join(tmpdir(), 'no-such-dir', 'waiting.html');

    await expect(start(testConfig({ UPSTREAM: 'http://127.0.0.1:9' }, { pageHtmlPath: missing }))).rejects.toThrow(PageTemplateError);
    await expect(start(testConfig({ UPSTREAM: 'http://127.0.0.1:9' }, { pageHtmlPath: missing }))).rejects.toThrow(/node build\.mjs/);
  });

  it('should refuse to start without UPSTREAM or a default origin, naming UPSTREAM', async () => {
    await expect(start(testConfig({}))).rejects.toThrow(new ConfigError('UPSTREAM is not set: name the site to put the waiting room in front of.'));
  });

  it('should refuse a waiting page without exactly one config element', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-bad-page-'));
    const file = path.join(dir, 'waiting.html');
    writeFileSync(file, '<html><body>no config here</body></html>');

    await expect(start(testConfig({ UPSTREAM: 'http://127.0.0.1:9' }, { pageHtmlPath: file }))).rejects.toThrow(/exactly one <script id="waiting-room-config"/);
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

describe('bin/server.ts', () => {
  it('should exit with a clear message on a bad setting', async () => {
    // The server as this run built it, as `npm start` runs it.
    const run = promisify(execFile)(process.execPath, [builtServerScript()], {
      cwd: runBuildDir(),
      env: { ...inheritedEnvironment(process.env), ACTIVE_LIMIT: 'lots', PORT: '0' },
    });

    await expect(run).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('Configuration error: ACTIVE_LIMIT must be a whole number from 1 to 1000000; got "lots".'),
    });
  }, 20_000);

  it('should say once at start that a former name still works, and still stop before listening on a bad value', async () => {
    const run = promisify(execFile)(process.execPath, [builtServerScript()], {
      cwd: runBuildDir(),
      env: { ...inheritedEnvironment(process.env), REALTIME_PONG_TIMEOUT: '5', SESSION_SECONDS: 'long', PORT: '0' },
    });

    const failed: { code: number; stdout: string; stderr: string } = await run.then(
      () => Promise.reject(new Error('started')),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr.split('REALTIME_PONG_TIMEOUT is now called REALTIME_PONG_TIMEOUT_SECONDS; the old name still works.')).toHaveLength(2);
    expect(failed.stderr).toContain('Configuration error: SESSION_SECONDS must be a whole number from 1 to 604800; got "long".');
    expect(failed.stdout).not.toContain('open http');
  }, 20_000);

  it.each([
    ['warns at start', {}, true],
    ['says nothing', { CONNECTOR_ORIGINS: 'http://localhost:3000' }, false],
  ])(
    'with PASS_SECRET and, as the case may be, CONNECTOR_ORIGINS: %s about the connectors it cannot take',
    async (_case, env, warned) => {
      // The port is taken, so that the server stops right after the warnings it prints at start.
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const { port } = taken.address() as AddressInfo;
      try {
        // The server as this run built it, which finds the page this run built beside it.
        const run = promisify(execFile)(process.execPath, [builtServerScript()], {
          cwd: runBuildDir(),
          env: { ...inheritedEnvironment(process.env), PASS_SECRET: 'a-pass-secret-of-at-least-32-characters', HOST: '127.0.0.1', PORT: String(port), ...env },
        });
        const failed: { code: number; stderr: string } = await run.then(
          () => Promise.reject(new Error('started')),
          (error: { code: number; stderr: string }) => error,
        );
        expect(failed.stderr).toContain(`Port ${port} is in use`);
        expect(failed.stderr.includes('PASS_SECRET is set but no room takes connectors')).toBe(warned);
        if (warned) expect(failed.stderr).toContain('CONNECTOR_ORIGINS');
      } finally {
        taken.close();
      }
    },
    30_000,
  );
});
