import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PageConfigJson } from '@waiting-room/streams/contract';
import { ConfigError, loadConfig } from '../../server/process/config';
import { roomNames } from '../../server/process/room-factory';
import { eventually } from '../support/eventually';
import { ManualClock } from './support/manual-clock';
import { connectPusher, subscribe } from './support/realtime';
import { ADMIN_TOKEN, startServer, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

const ROOMS = JSON.stringify([
  { name: 'checkout', protect: ['/checkout'], activeLimit: 1, releasePerMinute: 4 },
  { name: 'tickets', protect: ['/tickets'], activeLimit: 1 },
  { name: 'vip', protect: ['/tickets/vip'], activeLimit: 1 },
]);

describe('rooms in the configuration', () => {
  const load = (env: Record<string, string>) => () => loadConfig({ ADMIN_TOKEN, ...env });

  it('should make one room named default of PROTECT and the limits when no room is listed', () => {
    expect(loadConfig({ PROTECT: '/a,/b', ACTIVE_LIMIT: '3' }).rooms).toEqual([
      {
        name: 'default',
        protect: ['/a', '/b'],
        activeLimit: 3,
        releasePerMinute: 6,
        admission: { mode: 'fixed', originLatencyTargetMs: 1000, feedbackMs: 300_000 },
        botChallenge: 'off',
        queueingStatusCode: 503,
        connectorOrigins: [],
        reportRetentionHours: 72,
        awaySeconds: 1800,
        claimSeconds: 300,
        codeMinutes: 1440,
      },
    ]);
  });

  it('should give each room ADMISSION and ORIGIN_LATENCY_TARGET_MS unless its entry says otherwise', () => {
    const rooms = JSON.stringify([
      { name: 'checkout', protect: ['/checkout'], admission: 'fixed' },
      { name: 'tickets', protect: ['/tickets'], originLatencyTargetMs: 250 },
    ]);
    const config = loadConfig({ ROOMS: rooms, ADMISSION: 'adaptive', ORIGIN_LATENCY_TARGET_MS: '400', ADMISSION_FEEDBACK_SECONDS: '60' });

    expect(config.rooms.map((room) => room.admission)).toEqual([
      { mode: 'fixed', originLatencyTargetMs: 400, feedbackMs: 60_000 },
      { mode: 'adaptive', originLatencyTargetMs: 250, feedbackMs: 60_000 },
    ]);
  });

  it('should take each room’s bot check from its botChallenge, else from BOT_CHALLENGE', () => {
    const rooms = JSON.stringify([
      { name: 'drop', protect: ['/drop'], botChallenge: 'pow' },
      { name: 'shop', protect: ['/shop'], botChallenge: 'off' },
      { name: 'other', protect: ['/other'] },
    ]);

    expect(loadConfig({ ROOMS: rooms }).rooms.map((room) => room.botChallenge)).toEqual(['pow', 'off', 'off']);
    expect(loadConfig({ ROOMS: rooms, BOT_CHALLENGE: 'pow' }).rooms.map((room) => room.botChallenge)).toEqual(['pow', 'off', 'pow']);
    expect(load({ ROOMS: JSON.stringify([{ name: 'x', protect: ['/x'], botChallenge: 'captcha' }]) })).toThrow(
      new ConfigError('ROOMS[0].botChallenge must be one of off, pow.'),
    );
  });

  it('should read ROOMS, with ACTIVE_LIMIT and RELEASE_PER_MINUTE as the defaults of each room', () => {
    const config = loadConfig({ ROOMS, RELEASE_PER_MINUTE: '9' });

    expect(config.rooms.map((room) => [room.name, room.activeLimit, room.releasePerMinute])).toEqual([
      ['checkout', 1, 4],
      ['tickets', 1, 9],
      ['vip', 1, 9],
    ]);
    expect(config.protect).toEqual(['/checkout', '/tickets', '/tickets/vip']);
  });

  it('should read ROOMS_FILE', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'rooms-')), 'rooms.json');
    writeFileSync(file, ROOMS);

    expect(loadConfig({ ROOMS_FILE: file }).rooms).toHaveLength(3);
  });

  it.each([
    ['ROOMS and PROTECT together', { ROOMS, PROTECT: '/x' }, /unset PROTECT/],
    ['ROOMS and ROOMS_FILE together', { ROOMS, ROOMS_FILE: '/nowhere' }, /not both/],
    ['a file that cannot be read', { ROOMS_FILE: '/nowhere/rooms.json' }, /cannot be read/],
    ['not JSON', { ROOMS: '[{name' }, /must be JSON/],
    ['an empty list', { ROOMS: '[]' }, /non-empty JSON array/],
    ['an unknown field', { ROOMS: '[{"name":"a","protect":["/a"],"limit":3}]' }, /unknown field "limit"/],
    ['a bad name', { ROOMS: '[{"name":"A b","protect":["/a"]}]' }, /name must be/],
    ['a name twice', { ROOMS: '[{"name":"a","protect":["/a"]},{"name":"a","protect":["/b"]}]' }, /used twice/],
    ['a prefix in two rooms', { ROOMS: '[{"name":"a","protect":["/a"]},{"name":"b","protect":["/A/"]}]' }, /already room "a"'s/],
    ['no prefix', { ROOMS: '[{"name":"a","protect":[]}]' }, /non-empty array of path prefixes/],
    ['a prefix the server would not route', { ROOMS: '[{"name":"a","protect":["/a/%2f"]}]' }, /not a path the server routes/],
    ['a limit of 0', { ROOMS: '[{"name":"a","protect":["/a"],"activeLimit":0}]' }, /activeLimit must be/],
    ['an unknown admission', { ROOMS: '[{"name":"a","protect":["/a"],"admission":"auto"}]' }, /admission must be one of fixed, adaptive/],
    [
      'a latency target the origin timeout would cut first',
      { ROOMS: '[{"name":"a","protect":["/a"],"admission":"adaptive","originLatencyTargetMs":5000}]', UPSTREAM_TIMEOUT_MS: '5000' },
      /originLatencyTargetMs \(5000\) must be below UPSTREAM_TIMEOUT_MS \(5000\)/,
    ],
  ])('should refuse %s', (_what, env, message) => {
    expect(load(env)).toThrow(ConfigError);
    expect(load(env)).toThrow(message);
  });
});

describe("a room's names outside the process", () => {
  it.each([
    ['the first room: those a single line has always had', 'checkout', true, ['wr:', '/queue/request', '/queue/info/{uuid}', 'App.Queue', 'line.json']],
    [
      'any other room: carrying its name',
      'tickets',
      false,
      ['wr:tickets:', '/queue/request?room=tickets', '/queue/info/{uuid}?room=tickets', 'App.Queue.tickets', 'line.json.tickets'],
    ],
  ])('should name %s', (_case, name, first, expected) => {
    const names = roomNames(name, first);
    expect([names.storePrefix, names.routes.queue_request, names.routes.queue_info, names.queueChannel, names.stateFile('line.json')]).toEqual(expected);
  });
});

describe('several rooms in front of one origin', () => {
  let server: StartedWithOrigin;

  const adminCall = async (method: 'GET' | 'POST', route: string, body?: unknown) => {
    const response = await fetch(`${server.url}/admin/${route}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, json: await response.json() };
  };

  beforeEach(async () => {
    server = await startServer({ ROOMS, RELEASE_PER_MINUTE: '0' }, { clock: new ManualClock() });
    // Each room's one place is taken.
    for (const path of ['/checkout', '/tickets', '/tickets/vip']) {
      expect((await new Visitor(server.url).get(path)).page).toBeUndefined();
    }
  });
  afterEach(() => server.close());

  it('should keep a line per room, with its own limit, positions and routes', async () => {
    const ada = new Visitor(server.url);
    const bob = new Visitor(server.url);
    const atCheckout = await ada.hold('/checkout?item=1');
    const atTickets = await bob.hold('/tickets/42');
    const atVip = await new Visitor(server.url).hold('/tickets/VIP/7');

    expect([atCheckout.queue.position, atTickets.queue.position, atVip.queue.position]).toEqual([1, 1, 1]);
    expect(atCheckout.routes).toEqual({ queue_request: '/queue/request', queue_info: '/queue/info/{uuid}' });
    expect(atTickets.routes).toEqual({ queue_request: '/queue/request?room=tickets', queue_info: '/queue/info/{uuid}?room=tickets' });
    expect(atVip.routes.queue_info).toBe('/queue/info/{uuid}?room=vip');
    // Each room's line moves on a channel of its own; the first room's is the one a single line has.
    expect(atCheckout.realtime).not.toHaveProperty('queueChannel');
    expect([atTickets.realtime.queueChannel, atVip.realtime.queueChannel]).toEqual(['App.Queue.tickets', 'App.Queue.vip']);
    // Every room's answer carries ticket and served of its own line, for its QueueMoved; its estimate, its own
    // limits (one admitted at once for the default 5 minutes: the head waits for that session to end).
    expect((await ada.get(`/queue/info/${atCheckout.queue.uuid}`)).json).toEqual({ position: 1, estimated: 5, ticket: 1, served: 0 });
    expect((await bob.get(atTickets.routes.queue_info.replace('{uuid}', atTickets.queue.uuid))).json).toEqual({
      position: 1,
      estimated: expect.any(Number),
      ticket: 1,
      served: 0,
    });
    // A place is its room's: asked of another room, it is unknown.
    expect((await bob.get(`/queue/info/${atTickets.queue.uuid}`)).status).toBe(404);
    expect((await bob.get(`/queue/info/${atTickets.queue.uuid}?room=nowhere`)).json.error.code).toBe('unknown_room');
    const request = await bob.post(atTickets.routes.queue_request, {
      json: { _token: atTickets.csrfToken, user_id: 0, uuid: atTickets.queue.uuid },
    });
    expect(request.status).toBe(202);
  });

  it("should give a visitor a place in each room they wait for, and keep one room's place when another's changes", async () => {
    const ada = new Visitor(server.url);
    const checkout = await ada.hold('/checkout');
    const tickets = await ada.hold('/tickets');
    const checkoutAgain = await ada.hold('/checkout?item=2');

    expect(tickets.queue.uuid).not.toBe(checkout.queue.uuid);
    expect(checkoutAgain.queue).toEqual({ ...checkout.queue, uri: '/checkout?item=2' });
    expect(tickets.queue).toMatchObject({ uri: '/tickets', position: 1 });
  });

  it('should report, release, pause and resume each room apart, the first when none is named', async () => {
    const ada = await new Visitor(server.url).hold('/checkout');
    const bob = await new Visitor(server.url).hold('/tickets');

    const released = await adminCall('POST', 'release?room=tickets', { count: 5 });
    const paused = await adminCall('POST', 'pause', { room: 'vip' });
    const rooms = await adminCall('GET', 'rooms');
    const first = await adminCall('GET', 'stats');
    const unknown = await adminCall('POST', 'release', { count: 1, room: 'nowhere' });

    expect(released.json.released).toEqual([bob.queue.uuid]);
    expect(paused.json).toEqual({ paused: true });
    expect(rooms.json.map((room: any) => [room.name, room.waiting, room.released, room.paused, room.activeLimit])).toEqual([
      ['checkout', 1, 0, false, 1],
      ['tickets', 0, 1, false, 1],
      ['vip', 0, 0, true, 1],
    ]);
    expect(first.json).toMatchObject({ waiting: 1, releasePerMinute: 4 });
    expect([unknown.status, unknown.json.error.code]).toEqual([404, 'unknown_room']);
    expect((await new Visitor(server.url).get(`/queue/info/${ada.queue.uuid}`)).json.position).toBe(1);
  });

  it("should publish each room's moves on its own channel, where no other room's reach", async () => {
    const ticketOf = async (page: PageConfigJson) =>
      (await new Visitor(server.url).get(page.routes.queue_info.replace('{uuid}', page.queue.uuid))).json.ticket as number;
    const tickets = await ticketOf(await new Visitor(server.url).hold('/tickets'));
    const checkout = await ticketOf(await new Visitor(server.url).hold('/checkout'));
    const client = await connectPusher(server);
    try {
      const heard: Array<{ channel: string; served: number }> = [];
      for (const name of ['App.Queue', 'App.Queue.tickets', 'App.Queue.vip']) {
        const { channel, error } = await subscribe(client, name);
        expect(error).toBeUndefined();
        channel.bind('QueueMoved', (data: { served: number }) => heard.push({ channel: name, served: data.served }));
      }

      await adminCall('POST', 'release', { count: 1, room: 'tickets' });
      await eventually(
        "the tickets' move",
        async () => heard,
        (found) => found.length === 1,
      );
      await adminCall('POST', 'release', { count: 1 });
      await eventually(
        "the checkout's move",
        async () => heard,
        (found) => found.length === 2,
      );

      // Each line counts its own: the released place's ticket has left its head.
      expect(heard).toEqual([
        { channel: 'App.Queue.tickets', served: tickets },
        { channel: 'App.Queue', served: checkout },
      ]);
    } finally {
      client.disconnect();
    }
  });

  it('should replay a held request of any room to the origin, once', async () => {
    const ada = new Visitor(server.url);
    const page = await ada.hold('/tickets/42', { form: { seats: '2' } });
    await adminCall('POST', 'release', { count: 1, room: 'tickets' });

    const replay = await ada.post('/tickets/42', { form: { uuid: page.queue.uuid, _token: page.csrfToken } });
    const again = await ada.post('/tickets/42', { form: { uuid: page.queue.uuid, _token: page.csrfToken } });

    expect(replay.status).toBe(200);
    expect(again.status).toBe(409);
    expect(
      server.origin
        .at('/tickets/42')
        .filter((one) => one.method === 'POST')
        .map((one) => one.body.toString()),
    ).toEqual(['seats=2']);
  });
});

describe('several rooms across a restart with STATE_FILE', () => {
  it("should keep every room's line, each in a file of its own", async () => {
    const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'rooms-state-')), 'line.json');
    const env = { ROOMS, RELEASE_PER_MINUTE: '0', STATE_FILE: stateFile, SESSION_SECRET: 's'.repeat(32) };
    const before = await startServer(env);
    for (const path of ['/checkout', '/tickets']) await new Visitor(before.url).get(path);
    const ada = new Visitor(before.url);
    const checkout = await ada.hold('/checkout');
    const tickets = await ada.hold('/tickets/9');
    await before.close();

    const after = await startServer(env);
    try {
      const again = new Visitor(after.url);
      again.cookie = ada.cookie;
      const info = (route: string, uuid: string) => again.get(route.replace('{uuid}', uuid));

      expect((await info(checkout.routes.queue_info, checkout.queue.uuid)).json).toMatchObject({ position: 1 });
      expect((await info(tickets.routes.queue_info, tickets.queue.uuid)).json).toMatchObject({ position: 1 });
      expect((await again.hold('/tickets/9')).queue).toEqual(tickets.queue);
    } finally {
      await after.close();
    }
  });
});
