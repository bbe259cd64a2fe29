import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Pusher from 'pusher-js';
import { isWaitingRoomRoute } from '../../server/domain/protection';
import type { PageConfigJson } from '@waiting-room/streams/contract';
import { MemoryStore } from '../../server/store/memory';
import { ManualClock } from './support/manual-clock';
import { connectPusher, record, subscribe } from './support/realtime';
import { admin, startServer, waitFor, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

/** With the whole site protected, the waiting room's own routes still answer as themselves. */
describe('PROTECT=/', () => {
  let server: StartedWithOrigin;
  let store: MemoryStore;
  let ada: Visitor;
  let page: PageConfigJson;
  const clients: Pusher[] = [];

  beforeEach(async () => {
    const assetsDir = mkdtempSync(path.join(tmpdir(), 'waiting-room-assets-'));
    writeFileSync(path.join(assetsDir, 'main-RYBGRLOA.js'), 'console.log(1);');
    store = new MemoryStore();
    server = await startServer({ PROTECT: '/', ACTIVE_LIMIT: '2', RELEASE_PER_MINUTE: '0' }, { clock: new ManualClock(), store }, { assetsDir });
    await new Visitor(server.url).get('/');
    await new Visitor(server.url).get('/');
    ada = new Visitor(server.url);
    page = await ada.hold('/?item=42');
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await server.close();
  });

  it('should hold the site, root included', async () => {
    expect(page.queue).toMatchObject({ uri: '/?item=42', method: 'GET', position: 1 });
  });

  it('should answer the admin API however often it is called', async () => {
    const answers = [];
    for (let call = 0; call < 3; call++) answers.push(await admin(server, 'GET', 'stats'));

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers.map((answer) => answer.headers.get('content-type'))).toEqual(Array(3).fill(expect.stringMatching(/^application\/json/)));
    expect(await answers[2].json()).toMatchObject({ waiting: 1, active: 2 });
  });

  it('should serve the waiting page\'s script to a held visitor, and answer the site\'s favicon "not now" without touching the held request', async () => {
    const script = await ada.get('/assets/main-RYBGRLOA.js');
    // As a browser asks for it: an image, part of the waiting page, not a page to wait for.
    const favicon = await ada.get('/favicon.ico', { 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors' });

    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.text).toBe('console.log(1);');
    expect(favicon.status).toBe(503);
    expect(favicon.headers.get('retry-after')).toBe('60');
    expect(favicon.page).toBeUndefined();
    expect(server.origin.at('/favicon.ico')).toEqual([]);
    expect((await store.get(page.queue.uuid))?.request).toEqual({ method: 'GET', uri: '/?item=42' });
    expect((await ada.queueInfo(page.queue.uuid)).json).toMatchObject({ position: 1 });
  });

  it('should answer queue_info, queue_request, channel authorization and the error sink, not the waiting page', async () => {
    const info = await ada.queueInfo(page.queue.uuid);
    const listening = await ada.queueRequest(page);
    const auth = await ada.post(
      '/pusher/auth',
      { form: { socket_id: '123.456', channel_name: `private-App.User.1.${page.queue.uuid}` } },
      { 'x-csrf-token': page.csrfToken },
    );
    const report = await ada.post('/api/1/envelope/', {
      raw: [
        JSON.stringify({ event_id: 'a'.repeat(32) }),
        JSON.stringify({ type: 'event' }),
        JSON.stringify({ message: 'Websoket KO - unavailable', level: 'error' }),
      ].join('\n'),
      type: 'text/plain;charset=UTF-8',
    });

    expect(info.status).toBe(200);
    expect(info.json).toMatchObject({ position: 1 });
    expect(listening.status).toBe(202);
    expect(auth.status).toBe(403);
    expect(auth.json.error.code).toBe('forbidden_channel');
    expect(report.status).toBe(200);
    expect(report.json).toEqual({ received: 1 });
    for (const answer of [info, listening, auth, report]) expect(answer.page).toBeUndefined();
    // Only the two admitted visitors' pages reached the origin.
    expect(server.origin.received.map((one) => `${one.method} ${one.url}`)).toEqual(['GET /', 'GET /']);
  });

  it('should deliver the release through its own events API, then let the visitor through', async () => {
    const client = await connectPusher(server);
    clients.push(client);
    const { channel } = await subscribe(client, `App.Client.${page.queue.uuid}`);
    const released = record(channel, 'RequestUnqueud');

    expect((await admin(server, 'POST', 'release', { count: 1 })).status).toBe(200);
    await waitFor(() => released.length === 1, 'the release event');
    const replay = await ada.get('/?item=42');

    expect(released).toEqual([{ uuid: page.queue.uuid }]);
    expect(replay.status).toBe(200);
    expect(replay.page).toBeUndefined();
    expect(replay.text).toContain('<h1>A shop</h1>');
    expect(server.origin.received.filter((one) => one.url === '/?item=42')).toHaveLength(1);
  });
});

describe('isWaitingRoomRoute', () => {
  it("should know the waiting room's own routes, by whole path segments", () => {
    const own = [
      '/assets/main-RYBGRLOA.js',
      '/queue/request',
      '/queue/info/0b7c',
      '/pusher/auth',
      '/admin/stats',
      '/api/1/envelope/',
      '/api/1/envelope',
      '/apps/1/events',
      '/app/key?protocol=7',
    ];
    const site = [
      '/',
      '/checkout',
      '/api/orders',
      '/api/1/envelope/more',
      '/application',
      '/administrator',
      '/queued',
      '/pusher',
      '/favicon.ico',
      '/favicon.ico.php',
    ];

    expect(own.filter((url) => !isWaitingRoomRoute(url))).toEqual([]);
    expect(site.filter((url) => isWaitingRoomRoute(url))).toEqual([]);
  });

  // The target is parsed once (server/domain/request-target.ts) and the router routes that one
  // spelling: an own route is judged on it, case included, and a refused target is none.
  it('should judge the one normalized path the router routes', () => {
    expect(isWaitingRoomRoute('/%61dmin/stats')).toBe(true);
    expect(isWaitingRoomRoute('//admin/./stats')).toBe(true);
    expect(isWaitingRoomRoute('http://any-host/queue/info/0b7c')).toBe(true);
    expect(isWaitingRoomRoute('/admin/../checkout')).toBe(false);
    expect(isWaitingRoomRoute('/ADMIN/stats')).toBe(false);
    expect(isWaitingRoomRoute('/admin%2F..%2Fcheckout')).toBe(false);
    expect(isWaitingRoomRoute('/assets/%E0%A4%A')).toBe(false);
    expect(isWaitingRoomRoute('/admin/stats#x')).toBe(false);
  });
});
