import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Pusher from 'pusher-js';
import { eventually } from '../support/eventually';
import { adminRelease, restartInstance, startInstance, type Instance } from '../support/scale-out';
import { startServerProcess, stopAllServerProcesses } from '../support/server-process';
import { startTestOrigin, type TestOrigin } from './support/origin';
import { connectPusher, record, subscribe } from './support/realtime';
import { Visitor } from './support/visitor';

jest.setTimeout(60_000);

describe('a single instance restarted for a deploy (SIGTERM, then started again)', () => {
  const clients: Pusher[] = [];
  /** The site behind the instance: it outlives the instance's restarts, as a real one does. */
  let origin: TestOrigin;
  beforeEach(async () => {
    origin = await startTestOrigin();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await stopAllServerProcesses();
    await origin.close();
  });

  /** One instance on the memory store, releasing only by the admin API, with no SESSION_SECRET of its own. */
  const singleInstance = (extra: Record<string, string> = {}): Promise<Instance> =>
    startInstance({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', SESSION_SECRET: '', UPSTREAM: origin.url, ...extra });

  /** The bodies of the requests other than GETs that reached the origin at `path`. */
  const bodiesAt = (path: string) =>
    origin
      .at(path)
      .filter((one) => one.method !== 'GET')
      .map((one) => `${one.method} ${one.url} ${one.body.toString()}`);

  it('should keep every place, session and held request with STATE_FILE, and replay the held POST exactly once', async () => {
    const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'waiting-room-state-')), 'line.json');
    let server = await singleInstance({ STATE_FILE: stateFile });
    await new Visitor(server.url).get('/checkout');
    const bob = new Visitor(server.url);
    const bobPage = await bob.hold('/checkout?item=1');
    const ada = new Visitor(server.url);
    const adaPage = await ada.hold('/checkout?item=42', { form: { quantity: '3', note: 'gift wrap' } });
    expect((await ada.queueInfo(adaPage.queue.uuid)).json).toMatchObject({ position: 2 });
    const listening = await connectPusher(server);
    clients.push(listening);
    const closes: number[] = [];
    listening.connection.bind('error', () => undefined);
    listening.connection.bind('state_change', ({ previous }: { previous: string }) => {
      if (previous === 'connected') closes.push(Date.now());
    });
    await subscribe(listening, `App.Client.${adaPage.queue.uuid}`);

    expect(await server.process.stop()).toBe(0);
    expect(closes.length).toBeGreaterThan(0);
    // Only the server's user may read it: it holds the session secret and held bodies.
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    server = await restartInstance(server);

    // Loaded, then removed: a crash from now on cannot bring back this moment's line.
    expect(existsSync(stateFile)).toBe(false);
    // The same browsers, with the cookies the first process signed: same sessions, same places.
    expect((await bob.queueInfo(bobPage.queue.uuid)).json).toMatchObject({ position: 1 });
    expect((await ada.queueInfo(adaPage.queue.uuid)).json).toMatchObject({ position: 2 });
    expect((await ada.queueRequest(adaPage)).status).toBe(202);
    expect((await bob.hold('/checkout?item=1')).queue.uuid).toBe(bobPage.queue.uuid);
    const after = await connectPusher(server);
    clients.push(after);
    const received = record((await subscribe(after, `App.Client.${adaPage.queue.uuid}`)).channel, 'RequestUnqueud');

    expect(await adminRelease(server, 2)).toEqual([bobPage.queue.uuid, adaPage.queue.uuid]);
    await eventually(
      'the release event after the restart',
      async () => received.length,
      (n) => n > 0,
    );
    const replay = await ada.post(adaPage.queue.uri, { form: { uuid: adaPage.queue.uuid, _token: adaPage.csrfToken } });
    const again = await ada.post(adaPage.queue.uri, { form: { uuid: adaPage.queue.uuid, _token: adaPage.csrfToken } });

    expect(replay.status).toBe(200);
    expect(replay.text).toContain('<th>quantity</th><td>3</td>');
    expect(replay.text).toContain('<th>note</th><td>gift wrap</td>');
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('already_replayed');
    expect(bodiesAt('/checkout')).toEqual(['POST /checkout?item=42 quantity=3&note=gift+wrap']);
  });

  it('should not replay a held request twice across a restart', async () => {
    const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'waiting-room-state-')), 'line.json');
    const server = await singleInstance({ STATE_FILE: stateFile });
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    const page = await ada.hold('/checkout', { form: { quantity: '1' } });
    await adminRelease(server, 1);
    const replay = { uuid: page.queue.uuid, _token: page.csrfToken };
    expect((await ada.post(page.queue.uri, { form: replay })).status).toBe(200);

    expect(await server.process.stop()).toBe(0);
    await restartInstance(server);

    const again = await ada.post(page.queue.uri, { form: replay });

    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('already_replayed');
    expect(bodiesAt('/checkout')).toEqual(['POST /checkout quantity=1']);
  });

  it('should lose the line without STATE_FILE (the memory store lives in the process)', async () => {
    const server = await singleInstance();
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    const page = await ada.hold('/checkout');

    expect(await server.process.stop()).toBe(0);
    await restartInstance(server);

    expect((await ada.queueInfo(page.queue.uuid)).status).toBe(404);
  });

  it('should exit within 10 s of SIGTERM, whatever the clients do, and finish a request under way', async () => {
    const server = await singleInstance();
    // A keep-alive connection left idle, and a realtime socket that never answers the close.
    const idle = net.connect(server.port, '127.0.0.1');
    idle.on('error', () => undefined);
    idle.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const mute = net.connect(server.port, '127.0.0.1');
    mute.on('error', () => undefined);
    mute.write(
      'GET /app/waiting-room-key?protocol=7 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    mute.pause();
    // A request whose body is still on its way when the signal comes.
    const underWay = new Promise<string>((resolve) => {
      const socket = net.connect(server.port, '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('close', () => resolve(answer));
      socket.on('error', () => resolve(answer));
      const body = 'name=Ada';
      socket.write(
        `POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      );
      setTimeout(() => socket.write(body), 500);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));

    const signalled = Date.now();
    const code = await server.process.stop();
    const took = Date.now() - signalled;

    expect(code).toBe(0);
    expect(took).toBeLessThan(10_000);
    // Answered by the origin, the body that came after the signal included, not cut off.
    expect(await underWay).toMatch(/^HTTP\/1\.1 303 /);
    expect(bodiesAt('/login')).toEqual(['POST /login name=Ada']);
    idle.destroy();
    mute.destroy();
  });

  it('should create the folders STATE_FILE names that do not exist yet, and keep the line in it', async () => {
    const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'waiting-room-state-')), 'not', 'yet', 'line.json');
    const server = await singleInstance({ STATE_FILE: stateFile });
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    const page = await ada.hold('/checkout');
    // Nothing left beside it by the check made at start.
    expect(readdirSync(path.dirname(stateFile))).toEqual([]);

    expect(await server.process.stop()).toBe(0);
    expect(server.process.output()).toContain(`The line was written to ${stateFile}.`);
    await restartInstance(server);

    expect((await ada.queueInfo(page.queue.uuid)).json).toMatchObject({ position: 1 });
  });

  it('should refuse to start, naming STATE_FILE, when it cannot be written', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-state-'));
    // A folder that cannot be made: its parent is a file.
    writeFileSync(path.join(dir, 'plain-file'), '');
    const underAFile = path.join(dir, 'plain-file', 'line.json');
    const env = { ACTIVE_LIMIT: '1', ADMIN_TOKEN: 'a-long-enough-admin-token-here' };

    await expect(startServerProcess({ ...env, STATE_FILE: underAFile })).rejects.toThrow(/STATE_FILE .*plain-file\/line\.json cannot be written/);
    if (process.getuid?.() !== 0) {
      // A folder the server's user may not write in (root writes anywhere).
      const readOnly = path.join(dir, 'read-only');
      mkdirSync(readOnly, { mode: 0o500 });
      await expect(startServerProcess({ ...env, STATE_FILE: path.join(readOnly, 'line.json') })).rejects.toThrow(/STATE_FILE .* cannot be written/);
      chmodSync(readOnly, 0o700);
    }
  });

  it('should say the line was NOT kept, and exit 1, when writing it fails at SIGTERM', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'waiting-room-state-')), 'state');
    const stateFile = path.join(dir, 'line.json');
    const server = await singleInstance({ STATE_FILE: stateFile });
    await new Visitor(server.url).get('/checkout');
    await new Visitor(server.url).hold('/checkout');
    // The folder goes away under the running server (a volume unmounted, a cleanup job).
    rmSync(dir, { recursive: true });
    writeFileSync(dir, 'a file where the folder was');

    expect(await server.process.stop()).toBe(1);
    expect(server.process.output()).toMatch(/STATE_FILE .*line\.json could not be written .*the line was NOT kept/);
    expect(server.process.output()).not.toContain('The line was written');
  });

  it('should refuse to start on a state file it cannot read, naming STATE_FILE, and leave the file alone', async () => {
    const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'waiting-room-state-')), 'line.json');
    writeFileSync(stateFile, '{"version": 1, "line": "not a line"');

    await expect(startServerProcess({ ACTIVE_LIMIT: '1', ADMIN_TOKEN: 'a-long-enough-admin-token-here', STATE_FILE: stateFile })).rejects.toThrow(
      /STATE_FILE .* cannot be loaded/,
    );
    expect(existsSync(stateFile)).toBe(true);
  });
});
