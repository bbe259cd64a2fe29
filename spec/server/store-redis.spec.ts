import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import Redis from 'ioredis';
import { PlacesPerAddressError, StoreUnavailableError } from '../../server/store/errors';
import { MAX_ARRIVALS, RedisStore, type RedisStoreOptions } from '../../server/store/redis/redis-store';
import { drawKey, drawOrder } from '../../server/domain/events/draw';
import { encodeRequest } from '../../server/store/redis/codec';
import { ARRIVALS_LOGGED, ARRIVALS_LOGGED_MS, SCRIPT_KEYS, defineStoreCommands, type CommandName } from '../../server/store/redis/commands';
import { BLOCK_MS } from '../../server/store/redis/line-copy';
import { ARRIVAL_ROWS_MS } from '../../server/store/redis/report';
import { SEEN_FLUSH_MS, seenSpacing } from '../../server/store/redis/seen-marks';
import type { Arrival, Entry, HeldRequest, ReleasePolicy } from '../../server/store/types';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { describeQueueStore } from './store-contract';
import { describeReportStore } from './store-report-contract';
import { describeHandoffStore } from './store-handoff-contract';
import { describeEventStore, drawInOrder, rankKey } from './store-events-contract';

const get: HeldRequest = { method: 'GET', uri: '/checkout?item=42' };
const post: HeldRequest = {
  method: 'POST',
  uri: '/checkout',
  body: { contentType: 'application/x-www-form-urlencoded', raw: 'item=42&qty=1' },
};
/** Larger than what fits inside the entry hash, so it is kept in its own key. */
const longPost: HeldRequest = {
  method: 'PUT',
  uri: `/checkout?${'utm_campaign=spring&'.repeat(20)}item=42`,
  body: { contentType: 'application/json', raw: JSON.stringify({ note: 'é'.repeat(2000), qty: 1 }) },
};
const policy: ReleasePolicy = { activeLimit: 100, sessionMs: 300_000, perMinute: 180, abandonMs: 180_000 };
const t0 = 1_700_000_000_000;

let server: RedisServer;
/** A plain client to look inside Redis. */
let admin: Redis;
let rooms = 0;
const opened: RedisStore[] = [];

/** A prefix of its own for each room, so tests never see each other's keys. */
const newRoom = () => `room${++rooms}:`;

function open(url: string, prefix: string, options: RedisStoreOptions = {}): RedisStore {
  const store = new RedisStore(url, { prefix, ...options });
  opened.push(store);
  return store;
}

/** Holds one session after the other, so that tickets follow the order given. */
async function holdInOrder(store: RedisStore, sessions: string[], request = get): Promise<Entry[]> {
  const entries: Entry[] = [];
  for (const session of sessions) entries.push(await store.hold(session, 0, request, t0));
  return entries;
}

async function positions(store: RedisStore, entries: Entry[], now = t0) {
  return Promise.all(entries.map(async (e) => (await store.placeInLine(e.uuid, now))?.position));
}

/** Retries `call` until it resolves: the store is expected to come back by itself. */
async function eventually<T>(call: () => Promise<T>, attempts = 200): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
  defineStoreCommands(admin);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  admin?.disconnect();
  await server?.close();
});

describeQueueStore('redis', async () => open(server.url, newRoom()));
describeEventStore('redis', async () => open(server.url, newRoom()));
describeReportStore('redis', async () => open(server.url, newRoom()));
describeHandoffStore('redis', async () => open(server.url, newRoom()));

describe('redis queue store shared by several instances', () => {
  let one: RedisStore;
  let two: RedisStore;
  beforeEach(() => {
    const room = newRoom();
    one = open(server.url, room);
    two = open(server.url, room);
  });

  it('should share one line: a place held on one instance is read and released on the other', async () => {
    const [a, b, c] = await holdInOrder(one, ['a', 'b', 'c']);
    expect(await positions(two, [a, b, c])).toEqual([1, 2, 3]);
    expect((await two.release(1, t0 + 10, policy)).released.map((e) => e.uuid)).toEqual([a.uuid]);
    expect(await positions(one, [a, b, c], t0 + 10)).toEqual([0, 1, 2]);
    expect(await one.admit('a', t0 + 20, policy)).toBe(true);
    expect(await two.stats(t0 + 20)).toMatchObject({ waiting: 2, active: 1, released: 1, paused: false });
  });

  it('should keep one place for a session held on both instances at once', async () => {
    const [first, second] = await Promise.all([one.hold('s', 0, get, t0), two.hold('s', 0, post, t0)]);
    expect(second.uuid).toBe(first.uuid);
    expect((await one.stats(t0)).waiting).toBe(1);
  });

  it('should release each visitor once, in ticket order and within the rate, when both run the loop at once', async () => {
    const held = await holdInOrder(
      one,
      Array.from({ length: 20 }, (_, i) => `s${i}`),
    );
    const batches: Entry[][] = [];
    // 180 a minute is 3 a second: every second of the clock allows 3 releases between both.
    for (let second = 0; batches.flat().length < held.length && second < 30; second++) {
      const now = t0 + second * 1000;
      const round = await Promise.all(Array.from({ length: 8 }, async (_, i) => (await (i % 2 ? one : two).releaseDue(now, policy)).released));
      expect(round.flat().length).toBeLessThanOrEqual(3);
      batches.push(...round.filter((batch) => batch.length > 0));
    }
    const released = batches.flat();
    expect(new Set(released.map((e) => e.uuid)).size).toBe(released.length);
    // Batches never interleave: put in order of their first ticket, they give every ticket in turn.
    const tickets = [...batches]
      .sort((x, y) => x[0].ticket - y[0].ticket)
      .flat()
      .map((e) => e.ticket);
    expect(tickets).toEqual(held.map((e) => e.ticket));
  });

  it('should drop each walk-away once, and keep the others in order, when both sweep at once', async () => {
    const held = await holdInOrder(
      one,
      Array.from({ length: 40 }, (_, i) => `s${i}`),
    );
    const later = t0 + policy.abandonMs + 1;
    const stay = held.filter((_, i) => i % 3 === 0);
    await Promise.all(stay.map((e) => two.touch(e.uuid, later)));
    const dropped = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? one : two).dropAbandoned(later, policy.abandonMs)));
    expect(dropped.reduce((sum, n) => sum + n, 0)).toBe(held.length - stay.length);
    expect(await positions(two, stay, later)).toEqual(stay.map((_, i) => i + 1));
    expect((await one.stats(later)).waiting).toBe(stay.length);
  });

  it('should restore a held request once when both instances replay it at once', async () => {
    const [a] = await holdInOrder(one, ['a'], post);
    await two.release(1, t0, policy);
    const restored = await Promise.all([one.takeHeld(a.uuid, 'a'), two.takeHeld(a.uuid, 'a')]);
    expect(restored.filter(Boolean)).toEqual([post]);
  });

  it('should place a draw alike when two instances key and place it at once, and one takes up where the other stopped', async () => {
    const prefix = newRoom();
    const [first, second] = [open(server.url, prefix), open(server.url, prefix)];
    const seed = '5e'.repeat(32);
    await first.startPrequeue('big', seed);
    const count = 2007;
    for (let start = 0; start < count; start += 500) {
      await Promise.all(Array.from({ length: Math.min(500, count - start) }, (_, i) => first.hold(`big-${start + i}`, 0, get, t0)));
    }
    const entrants = await second.entrantsOf('big');
    await first.openEvent('big');
    const key = async (store: RedisStore) => {
      for (;;) {
        const { uuids, mark } = await store.unkeyedEntrants('big', 300);
        await store.addDrawKeys(
          'big',
          uuids.map((uuid) => ({ uuid, key: drawKey(seed, uuid) })),
          mark,
        );
        if (uuids.length < 300) return;
      }
    };
    await Promise.all([key(first), key(second)]);
    expect(await admin.zcard(`${prefix}ev:big:keys`)).toBe(count);
    // The first stops after two steps; both then go on at once.
    expect(await first.placeDrawn('big', 250)).toEqual({ placed: 250, done: false });
    expect(await first.placeDrawn('big', 250)).toEqual({ placed: 250, done: false });
    await first.close();
    const third = open(server.url, prefix);
    const place = async (store: RedisStore) => {
      let placed = 0;
      for (;;) {
        const step = await store.placeDrawn('big', 250);
        placed += step?.placed ?? 0;
        if (step?.done) return placed;
      }
    };
    const placed = await Promise.all([place(second), place(third)]);
    expect(placed[0] + placed[1]).toBe(count - 500);
    const order = drawOrder(seed, entrants).map((drawn) => drawn.uuid);
    expect(await second.entrantsOf('big')).toEqual(order);
    for (const i of [0, 1, 249, 250, 1000, count - 1]) {
      expect((await third.placeInLine(order[i], t0))?.position).toBe(i + 1);
    }
    const tickets = await admin.zrangebyscore(`${prefix}waiting`, '-inf', '+inf', 'WITHSCORES');
    expect(new Set(tickets.filter((_, i) => i % 2 === 1)).size).toBe(count);
    expect(await admin.exists(`${prefix}ev:big:keys`)).toBe(0);
    // Thousands of entrants over three clients: seconds on a busy machine, where the 5 s default is short.
  }, 30_000);

  it('should keep rooms with different prefixes apart', async () => {
    const other = open(server.url, newRoom());
    const [a] = await holdInOrder(one, ['a']);
    expect(await other.get(a.uuid)).toBeUndefined();
    expect(await other.stats(t0)).toEqual({ waiting: 0, pending: 0, active: 0, released: 0, paused: false, arrived: 0 });
    expect((await other.hold('b', 0, get, t0)).ticket).toBe(1);
  });
});

describe('redis queue store after an instance restarts', () => {
  it('should lose no place and no held request', async () => {
    const room = newRoom();
    const before = open(server.url, room);
    const [a, b, c] = await holdInOrder(before, ['a', 'b', 'c'], post);
    await before.release(1, t0, policy);
    await before.close();

    const after = open(server.url, room);
    expect(await positions(after, [a, b, c])).toEqual([0, 1, 2]);
    expect(await after.get(b.uuid)).toMatchObject({ sessionId: 'b', ticket: b.ticket, request: post, state: 'waiting' });
    expect(await after.takeHeld(a.uuid, 'a')).toEqual(post);
    expect(await after.takeHeld(a.uuid, 'a')).toBeUndefined();
    const d = await after.hold('d', 0, get, t0);
    expect(d.ticket).toBe(4);
    expect(await positions(after, [d])).toEqual([3]);
  });
});

describe('redis queue store upgraded from a version that kept the line as a list', () => {
  it('should keep every place, in order, the first time it is used', async () => {
    const room = newRoom();
    // What the previous version left in Redis: a list of uuids in ticket order, and the entries.
    const uuids = ['0b7c0000-0000-4000-8000-000000000001', '0b7c0000-0000-4000-8000-000000000002', '0b7c0000-0000-4000-8000-000000000003'];
    for (const [index, uuid] of uuids.entries()) {
      await admin.hset(`${room}e:${uuid}`, 's', `session${index}`, 'u', '0', 't', String(index + 5), 'h', String(t0), 'l', String(t0), 'q', encodeRequest(get));
      await admin.hset(`${room}sessions`, `session${index}`, uuid);
      await admin.rpush(`${room}line`, uuid);
    }
    await admin.hset(`${room}meta`, 't', '7', 's', '4', 'n', '4');
    const store = open(server.url, room);

    const before = await Promise.all(uuids.map(async (uuid) => (await store.position(uuid, t0 + 1))?.position));
    const stats = await store.stats(t0 + 1);
    const released = await store.release(1, t0 + 2, policy);

    expect(before).toEqual([1, 2, 3]);
    expect(stats.waiting).toBe(3);
    expect(released.released.map((entry) => entry.uuid)).toEqual([uuids[0]]);
    expect(await admin.exists(`${room}line`)).toBe(0);
  });
});

describe('redis queue store keys', () => {
  const roomKeys = async (room: string) => (await admin.keys(`${room}*`)).map((key) => key.slice(room.length)).sort();

  it('should keep a held request too long for the entry hash, and drop its key when replaced', async () => {
    const room = newRoom();
    const store = open(server.url, room);
    const a = await store.hold('a', 0, longPost, t0);
    expect(await roomKeys(room)).toContain(`r:${a.uuid}`);
    expect((await store.placeInLine(a.uuid, t0))?.entry.request).toEqual(longPost);
    await store.hold('a', 0, get, t0 + 1);
    expect(await roomKeys(room)).not.toContain(`r:${a.uuid}`);
    await store.hold('a', 0, longPost, t0 + 2);
    await store.release(1, t0 + 3, policy);
    expect(await store.takeHeld(a.uuid, 'a')).toEqual(longPost);
  });

  it('should leave no key of a visitor behind once released and their admission ended, or dropped as silent', async () => {
    const room = newRoom();
    const store = open(server.url, room);
    const [silent, ...present] = await holdInOrder(store, ['silent', 'a', 'b', 'c']);
    await store.hold('d', 0, longPost, t0);
    const later = t0 + policy.abandonMs + 1;
    await Promise.all([...present.map((e) => store.touch(e.uuid, later)), store.hold('d', 0, longPost, later)]);
    expect((await store.release(10, later, policy)).released).toHaveLength(4);
    expect(await store.get(silent.uuid)).toBeUndefined();
    expect((await store.releaseDue(later + policy.sessionMs, { ...policy, perMinute: 0 })).released).toEqual([]);
    expect(await roomKeys(room)).toEqual(['log', 'meta', 'recent']);
    expect(await store.stats(later + policy.sessionMs)).toMatchObject({ waiting: 0, active: 0, released: 4, paused: false });
  });

  it('should leave no key of a visitor behind once dropped by the sweep', async () => {
    const room = newRoom();
    const store = open(server.url, room);
    const [, stays] = await holdInOrder(store, ['gone', 'stays']);
    await store.hold('long', 0, longPost, t0);
    const later = t0 + policy.abandonMs + 1;
    await store.touch(stays.uuid, later);
    expect(await store.dropAbandoned(later, policy.abandonMs)).toBe(2);
    expect(await roomKeys(room)).toEqual([`e:${stays.uuid}`, 'log', 'meta', 'seen', 'sessions', 'waiting'].sort());
    expect((await store.release(1, later, policy)).released).toHaveLength(1);
    expect(await store.releaseDue(later + policy.sessionMs, { ...policy, perMinute: 0 })).toEqual({ released: [], served: 1, moved: false });
    expect(await roomKeys(room)).toEqual(['log', 'meta', 'recent']);
  });

  it('should refuse a client that prefixes keys itself, since the scripts name keys of their own', () => {
    const client = new Redis(server.url, { keyPrefix: 'other:', lazyConnect: true });
    try {
      expect(() => new RedisStore(client)).toThrow(/without keyPrefix/);
    } finally {
      client.disconnect();
    }
  });

  it('should keep a waiting visitor in well under a kilobyte', async () => {
    const room = newRoom();
    const store = open(server.url, room);
    await store.stats(t0);
    const used = async () => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
    const start = await used();
    const count = 2000;
    for (let i = 0; i < count; i++) await store.hold(randomBytes(24).toString('base64url'), 0, get, t0);
    const perVisitor = ((await used()) - start) / count;
    expect(perVisitor).toBeGreaterThan(0);
    // The entry hash and its key (about 230 bytes), the session's field (130), and the place in
    // two sorted sets (140 each): the line by ticket, for ranks, and by last seen, for the sweep.
    expect(perVisitor).toBeLessThan(800);
  });
});

describe("redis queue store's commands", () => {
  it("should be defined on a client given to the store, each answering the line's version and its own typed answer", async () => {
    const room = newRoom();
    const client = new Redis(server.url);
    try {
      const store = new RedisStore(client, { prefix: room });
      opened.push(store);
      await holdInOrder(store, ['a', 'b']);
      const [meta, waiting, seen, sessions, admitted, released, recent, pending, addresses, log] = [
        'meta',
        'waiting',
        'seen',
        'sessions',
        'admitted',
        'released',
        'recent',
        'pending',
        'addresses',
        'log',
      ].map((key) => room + key);

      await untilLogged(room);
      const [version, arrivalsWait, stats] = await client.waitingRoomStats(
        meta,
        waiting,
        seen,
        sessions,
        admitted,
        released,
        recent,
        pending,
        addresses,
        log,
        room,
        '0',
        t0,
      );
      // @ts-expect-error: stats takes the time it is asked at.
      void (() => client.waitingRoomStats(meta, waiting, seen, sessions, admitted, released, recent, pending, addresses, log, room, '0'));

      // Two holds, logged together: one change of the line, and no arrival waits to be logged.
      expect([version, arrivalsWait]).toEqual([1, 0]);
      // Waiting, active, released, paused, arrived, pending.
      expect(stats).toEqual([2, 0, 0, 0, 2, 0]);
    } finally {
      client.disconnect();
    }
  });
});

/**
 * A command of the store's in `room`, sent by the test's own client: no instance then asks for the
 * arrivals waiting to be logged. Answers {the line's version, 1 when arrivals wait to be logged}.
 */
async function command(name: CommandName, room: string, args: (string | number)[]) {
  const run = admin[name] as unknown as (...call: unknown[]) => Promise<[number, number]>;
  const [version, arrivalsWait] = await run.call(admin, ...SCRIPT_KEYS.map((key) => room + key), room, '0', ...args);
  return { version, arrivalsWait };
}

/** Places held in one call, one each for `uuids`, in order (with the test's own client). */
const arrive = (room: string, uuids: string[]) =>
  command(
    'waitingRoomArrive',
    room,
    uuids.flatMap((uuid) => [`s-${uuid}`, t0, '', 0, 0, encodeRequest(get), uuid, '', 0, '', '']),
  );
const uuidsFor = (count: number) => Array.from({ length: count }, () => randomBytes(8).toString('hex'));

describe("redis queue store's log of arrivals", () => {
  const lastLogged = async (room: string) => {
    const [[, fields]] = await admin.xrevrange(`${room}log`, '+', '-', 'COUNT', 1);
    return Object.fromEntries(fields.flatMap((field, i) => (i % 2 === 0 ? [[field, fields[i + 1]]] : [])));
  };

  it(`should log ${ARRIVALS_LOGGED} arrivals together at once, and fewer once the first has waited ${ARRIVALS_LOGGED_MS} ms`, async () => {
    const room = newRoom();
    const first = uuidsFor(ARRIVALS_LOGGED);
    expect(await arrive(room, first.slice(0, -1))).toEqual({ version: 0, arrivalsWait: 1 });
    expect(await admin.xlen(`${room}log`)).toBe(0);
    expect(await admin.hget(`${room}meta`, 'wa')).toBe(String(ARRIVALS_LOGGED - 1));

    expect(await arrive(room, first.slice(-1))).toEqual({ version: 1, arrivalsWait: 0 });
    expect((await lastLogged(room)).c).toBe(first.map((uuid, i) => `+${i + 1}:${uuid}`).join(','));
    expect(await admin.hget(`${room}meta`, 'wa')).toBeNull();

    const [late] = uuidsFor(1);
    expect(await arrive(room, [late])).toEqual({ version: 1, arrivalsWait: 1 });
    expect(await command('waitingRoomLogArrivals', room, [])).toEqual({ version: 1, arrivalsWait: 1 });
    await pause(ARRIVALS_LOGGED_MS + 5);
    expect(await command('waitingRoomLogArrivals', room, [])).toEqual({ version: 2, arrivalsWait: 0 });
    expect(await lastLogged(room)).toMatchObject({ v: '2', c: `+${ARRIVALS_LOGGED + 1}:${late}` });
    expect(await admin.exists(`${room}wa`)).toBe(0);
  });

  it("should keep the room's other state beside the arrivals waiting: the operator's limits", async () => {
    const room = newRoom();
    const store = open(server.url, room);
    await store.setLimits({ activeLimit: 7, perMinute: 90 });
    await holdInOrder(store, ['a', 'b']);
    expect(await store.limits()).toEqual({ activeLimit: 7, perMinute: 90 });
    await untilLogged(room);
    expect(await store.limits()).toEqual({ activeLimit: 7, perMinute: 90 });
  });

  it('should ask for its arrivals to be logged only while they wait: not once another call has logged them', async () => {
    const room = newRoom();
    const store = open(server.url, room);
    const asks = logAsks(store);
    await holdInOrder(store, ['a', 'b']);
    await store.release(1, t0, policy);
    await pause(ARRIVALS_LOGGED_MS + 30);
    expect(asks()).toBe(0);
    await holdInOrder(store, ['c']);
    await untilLogged(room);
    expect(asks()).toBe(1);
  });

  it('should log the arrivals waiting ahead of any other change, in its entry, in order', async () => {
    const room = newRoom();
    const [a, b] = uuidsFor(2);
    await arrive(room, [a]);
    await arrive(room, [b]);
    expect(await command('waitingRoomRelease', room, [1, t0, 60_000, 3_600_000, '', ''])).toEqual({ version: 1, arrivalsWait: 0 });
    expect(await lastLogged(room)).toMatchObject({ v: '1', s: '1', c: `+1:${a},+2:${b},-${a}`, r: a });
    expect(await admin.hget(`${room}meta`, 'wa')).toBeNull();
  });
});

describe("redis queue store's arrivals", () => {
  it('should hold the arrivals of one turn in one script, logged as one change, and write their report rows in one more', async () => {
    const room = newRoom();
    const store = open(server.url, room);
    await store.hold('warm', 0, get, t0);
    await untilLogged(room);
    const asks = logAsks(store);
    let before = await scriptCalls();
    const logged = await admin.xlen(`${room}log`);
    const arrivals = await Promise.all(Array.from({ length: 20 }, (_, i) => store.arrive(`s${i}`, 0, get, t0 + 1, undefined)));
    expect((await scriptCalls()) - before - asks()).toBe(1);
    const places = arrivals.map((arrival) => (arrival.admitted ? undefined : arrival.place));
    expect(places.map((place) => place?.position)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    // Logged once due, by the one more call the instance makes then.
    await untilLogged(room);
    expect([(await scriptCalls()) - before, asks()]).toEqual([2, 1]);
    expect((await admin.xlen(`${room}log`)) - logged).toBe(1);
    const [[, fields]] = await admin.xrevrange(`${room}log`, '+', '-', 'COUNT', 1);
    expect(fields[fields.indexOf('c') + 1]).toBe(places.map((place) => `+${place!.entry.ticket}:${place!.entry.uuid}`).join(','));
    before = await scriptCalls();

    const rows = places.map((place, i) => ({ uuid: place!.entry.uuid, heldAt: t0 + 1, arrivedAt: t0 + 1, lineNumber: i + 2, estimate: 1 }));
    const written = rows.map((row) => store.reportArrival(row, 3_600_000));
    // A release reported before the arrivals' turn ended still finds their rows.
    const released = store.reportReleases([{ uuid: rows[0].uuid, heldAt: t0 + 1 }], t0 + 5, 3_600_000);
    await Promise.all([...written, released]);
    expect((await scriptCalls()) - before).toBe(2);
    const { rows: read } = await store.reportRead(t0, t0 + 60_000, t0 + 60_000);
    expect(read).toHaveLength(20);
    expect(read.find((row) => row.uuid === rows[0].uuid)).toMatchObject({ lineNumber: 2, releasedAt: t0 + 5 });
  });

  it(`should write the rows of arrivals that came turns apart in one script, within ${ARRIVAL_ROWS_MS} ms`, async () => {
    const store = open(server.url, newRoom());
    await store.stats(t0);
    const before = await scriptCalls();
    const written: Promise<void>[] = [];
    for (let i = 0; i < 3; i++) {
      written.push(store.reportArrival({ uuid: `u${i}`, heldAt: t0, arrivedAt: t0 + i, lineNumber: i + 1, estimate: 1 }, 3_600_000));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(written);
    expect((await scriptCalls()) - before).toBe(1);
    const { rows } = await store.reportRead(t0, t0 + 60_000, t0 + 60_000);
    expect(rows.map((row) => row.lineNumber).sort()).toEqual([1, 2, 3]);
  });

  it('should answer each arrival of a batch on its own: admitted, held in the order they came, or refused for its address alone', async () => {
    const store = open(server.url, newRoom());
    const limits = { activeLimit: 1, sessionMs: 60_000 };
    const options = { address: 'ip:1', placesPerAddress: 1 };
    await store.stats(t0);
    const asks = logAsks(store);
    const before = await scriptCalls();
    const [first, second, again, third, other] = await Promise.all([
      store.arrive('a', 0, get, t0, limits, options),
      store.arrive('b', 0, get, t0, limits, options),
      store.arrive('b', 0, post, t0, limits, options),
      store.arrive('c', 0, get, t0, limits, options).catch((error: unknown) => error),
      store.arrive('d', 0, get, t0, limits, { address: 'ip:2', placesPerAddress: 1 }),
    ]);
    expect((await scriptCalls()) - before - asks()).toBe(1);
    expect(first).toEqual({ admitted: true });
    expect(second.admitted || second.place.position).toBe(1);
    // The same session again in the batch keeps its place and gets its new request.
    expect(again.admitted || again.place).toMatchObject({ position: 1, entry: { uuid: second.admitted || second.place.entry.uuid, request: post } });
    expect(third).toBeInstanceOf(PlacesPerAddressError);
    expect(other.admitted || other.place.position).toBe(2);
  });

  it("should answer a batch's positions as Redis ranks them, behind code holders, kept places and pending ones, and count each address once", async () => {
    const room = newRoom();
    const store = open(server.url, room);
    const truth = open(server.url, room, sentToRedis);
    const limits = { activeLimit: 0, sessionMs: 60_000 };
    const [a, b] = await holdInOrder(store, ['a', 'b']);
    await store.addCodes(['h1'], t0, t0 + 60_000);
    await store.useCode('b', 'h1', t0, { address: '', perPlace: 3, perAddress: 3, windowMs: 60_000 });
    const options = { address: 'ip:1', placesPerAddress: 2 };
    const answers = await Promise.all([
      store.arrive('c', 0, get, t0, limits, options),
      store.arrive('a', 0, post, t0, limits, options),
      store.arrive('p', 0, get, t0, limits, { ...options, pendingUntil: t0 + 1000 }),
      store.arrive('d', 0, get, t0, limits, options).catch((error: unknown) => error),
      store.arrive('e', 0, get, t0, limits),
    ]);
    expect(answers[3]).toBeInstanceOf(PlacesPerAddressError);
    const told = (answers as (Arrival | Error)[]).flatMap((answer) => (answer instanceof Error || answer.admitted ? [] : [answer.place]));
    expect(told.map((place) => place.entry.uuid)).toContain(a.uuid);
    const truly = await Promise.all(told.map((place) => truth.position(place.entry.uuid, t0)));
    expect(told.map((place) => place.position)).toEqual(truly.map((answer) => answer?.position ?? 0));
    expect(told.map((place) => place.position)).toEqual([3, 2, 0, 4]);
    expect((await truth.position(b.uuid, t0))?.position).toBe(1);
    // c and p count against ip:1; d, refused, does not.
    expect(await admin.hget(`${room}addresses`, 'ip:1')).toBe('2');
  });

  it(`should send at most ${MAX_ARRIVALS} arrivals a call, and those that came meanwhile right after`, async () => {
    const store = open(server.url, newRoom());
    await store.hold('warm', 0, get, t0);
    const asks = logAsks(store);
    const before = await scriptCalls();
    const arrivals = await Promise.all(Array.from({ length: MAX_ARRIVALS + 8 }, (_, i) => store.arrive(`s${i}`, 0, get, t0 + 1, undefined)));
    expect((await scriptCalls()) - before - asks()).toBe(2);
    expect(arrivals.map((arrival) => !arrival.admitted && arrival.place.position)).toEqual(Array.from({ length: MAX_ARRIVALS + 8 }, (_, i) => i + 2));
  });
});

describe("redis queue store's events kept by the version before", () => {
  it('should place a draw whose opening the version before froze, and read the draw it kept comma-separated', async () => {
    const room = newRoom();
    const store = open(server.url, room);
    await store.startPrequeue('drop', 'seed');
    const [a, b, c] = await holdInOrder(store, ['a', 'b', 'c']);
    await store.openEvent('drop');
    await admin.set(`${room}ev:drop:frozen`, `${a.uuid}:${a.ticket},${b.uuid}:${b.ticket},${c.uuid}:${c.ticket}`);

    expect(await store.entrantsOf('drop')).toEqual([a.uuid, b.uuid, c.uuid]);
    expect(await drawInOrder(store, 'drop', [c.uuid, a.uuid, b.uuid])).toBe(true);
    expect(await Promise.all([c, a, b].map(async ({ uuid }) => (await store.position(uuid, t0))?.position))).toEqual([1, 2, 3]);
    expect(await admin.exists(`${room}ev:drop:frozen`)).toBe(0);

    await admin.del(`${room}ev:drop:order`);
    await admin.set(`${room}ev:drop:order`, `${b.uuid},${c.uuid},${a.uuid}`);
    expect(await store.entrantsOf('drop')).toEqual([b.uuid, c.uuid, a.uuid]);
  });

  it('should key an entrant whose place moved to another browser under its new uuid, and keep the slot of one keyed before it moved', async () => {
    const room = newRoom();
    const [store, copy] = [open(server.url, room), open(server.url, room)];
    const seed = '2a'.repeat(32);
    const offer = (uuid: string, sessionId: string) => ({ uuid, sessionId, name: 'Ada', expiresAt: t0 + 600_000 });
    await store.startPrequeue('drop', seed);
    const [a, b, c, d] = await holdInOrder(store, ['a', 'b', 'c', 'd']);
    const key = async (listed: { uuids: string[]; mark: number }) =>
      store.addDrawKeys(
        'drop',
        listed.uuids.map((uuid) => ({ uuid, key: drawKey(seed, uuid) })),
        listed.mark,
      );
    // a and b listed; b moves before the keys come, d once keyed.
    const listed = await store.unkeyedEntrants('drop', 2);
    await store.offerHandoff('kb', offer(b.uuid, 'b'), t0);
    expect((await store.takeHandoff('kb', 'b-laptop', 'b-moved', t0 + 1000)).moved).toBe(true);
    await key(listed);
    await key(await store.unkeyedEntrants('drop', 10));
    await untilCopied(copy, a.uuid);
    const slot = (await store.position(d.uuid, t0))?.ticket;
    await store.offerHandoff('kd', offer(d.uuid, 'd'), t0);
    expect((await store.takeHandoff('kd', 'd-laptop', 'd-moved', t0 + 1000)).moved).toBe(true);
    expect((await store.position('d-moved', t0))?.ticket).toBe(slot);
    await store.openEvent('drop');
    await key(await store.unkeyedEntrants('drop', 10));
    expect(await store.placeDrawn('drop', 10)).toEqual({ placed: 3, done: true });

    // b drawn as b-moved; d keeps the place its old uuid's key gave it, which the order names no more.
    const keyOf = new Map([a.uuid, 'b-moved', c.uuid].map((uuid) => [uuid, drawKey(seed, uuid)]));
    keyOf.set('d-moved', drawKey(seed, d.uuid));
    const line = [...keyOf.keys()].sort((x, y) => ((keyOf.get(x) as string) < (keyOf.get(y) as string) ? -1 : 1));
    expect(await store.entrantsOf('drop')).toEqual(drawOrder(seed, [a.uuid, 'b-moved', c.uuid]).map((drawn) => drawn.uuid));
    expect(await Promise.all(line.map(async (uuid) => (await store.position(uuid, t0))?.position))).toEqual([1, 2, 3, 4]);
    await untilSame(copy, open(server.url, room, sentToRedis), line);
    expect((await store.stats(t0)).arrived).toBe(4);
  });

  it('should move a place to another browser with its ticket once the pre-queue it waits in was deleted', async () => {
    const room = newRoom();
    const store = open(server.url, room);
    await store.startPrequeue('drop', '2b'.repeat(32));
    const [a] = await holdInOrder(store, ['a']);
    await store.forgetEvent('drop');
    await store.offerHandoff('ka', { uuid: a.uuid, sessionId: 'a', name: 'Ada', expiresAt: t0 + 600_000 }, t0);
    const moved = await store.takeHandoff('ka', 'a-laptop', 'a-moved', t0 + 1000);
    expect(moved.moved && moved.entry.ticket).toBe(a.ticket);
  });

  it('should refuse to key or place a draw whose pre-queue began on the version before, which kept no slots for it', async () => {
    const room = newRoom();
    const store = open(server.url, room);
    await store.startPrequeue('drop', 'seed');
    await admin.hdel(`${room}ev:drop`, 'sl');
    const [a] = await holdInOrder(store, ['a']);
    await expect(store.addDrawKeys('drop', [{ uuid: a.uuid, key: rankKey(1) }], a.ticket)).rejects.toThrow(
      /began its pre-queue on a version without draw slots/,
    );
    expect((await store.position(a.uuid, t0))?.ticket).toBe(a.ticket);
    await store.openEvent('drop');
    await expect(store.placeDrawn('drop', 10)).rejects.toThrow(/began its pre-queue on a version without draw slots/);
  });

  it('should read a draw the version before kept as JSON', async () => {
    const room = newRoom();
    const store = open(server.url, room);
    await store.startPrequeue('drop', 'seed');
    await store.openEvent('drop');
    expect(await drawInOrder(store, 'drop', [])).toBe(true);
    await admin.set(`${room}ev:drop:order`, '["x","y"]');
    expect(await store.entrantsOf('drop')).toEqual(['x', 'y']);
    await admin.set(`${room}ev:drop:order`, '');
    expect(await store.entrantsOf('drop')).toEqual([]);
  });
});

/** Polls sent to Redis, as when the store keeps no copy of the line (and before its copy is read). */
const sentToRedis: RedisStoreOptions = { localLine: false };

describe("redis queue store's polls sent to Redis", () => {
  it('should send the polls of one turn of the event loop to Redis as one script call, each with its own answer', async () => {
    const store = open(server.url, newRoom(), sentToRedis);
    const line = await holdInOrder(store, ['a', 'b', 'c', 'd']);
    // Logs the arrivals too: the instance then has nothing to ask for later.
    await store.release(1, t0 + 1, policy);
    // Scripts loaded and the line looked at: what follows is the polls' own calls.
    await store.position(line[1].uuid, t0 + 2);
    const before = await scriptCalls();

    const answers = await Promise.all([
      store.position(line[3].uuid, t0 + 5),
      store.position(line[0].uuid, t0 + 5),
      store.position('00000000-0000-4000-8000-000000000000', t0 + 5),
      store.position(line[2].uuid, t0 + 5),
      store.position(line[1].uuid, t0 + 5),
    ]);

    expect(await scriptCalls()).toBe(before + 1);
    expect(answers).toEqual([
      { position: 3, ticket: line[3].ticket, served: 1 },
      { position: 0, ticket: line[0].ticket, served: 1 },
      undefined,
      { position: 2, ticket: line[2].ticket, served: 1 },
      { position: 1, ticket: line[1].ticket, served: 1 },
    ]);
  });

  it('should hold the polls that arrive while a batch is on its way, and send them together once it is answered', async () => {
    const room = newRoom();
    const store = open(server.url, room, sentToRedis);
    const line = await holdInOrder(store, ['a', 'b', 'c', 'd', 'e', 'f']);
    await untilLogged(room);
    await store.position(line[0].uuid, t0);
    const before = await scriptCalls();
    // Redis busy for 200 ms: the first batch stays on its way while the others arrive, one turn apart.
    const busy = admin.eval(
      "local t = redis.call('TIME') local stop = t[1] * 1000000 + t[2] + 200000 repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] >= stop return 1",
      0,
    );

    const first = store.position(line[0].uuid, t0 + 1);
    const later: Promise<unknown>[] = [];
    for (const entry of line.slice(1)) {
      await new Promise((resolve) => setImmediate(resolve));
      later.push(store.position(entry.uuid, t0 + 1));
    }
    const answers = await Promise.all([first, ...later]);
    await busy;

    // The busy script, the first batch, and one for all the polls that waited.
    expect((await scriptCalls()) - before).toBe(3);
    expect(answers).toEqual(line.map((entry, index) => ({ position: index + 1, ticket: entry.ticket, served: 0 })));
  });

  it("should send a busy turn's polls in batches of at most 256, and mark each visitor seen at its own time", async () => {
    const room = newRoom();
    const store = open(server.url, room, sentToRedis);
    const line = await holdInOrder(
      store,
      Array.from({ length: 300 }, (_, index) => `s${index}`),
    );
    await untilLogged(room);
    await store.position(line[0].uuid, t0);
    const before = await scriptCalls();

    const answers = await Promise.all(line.map((entry, index) => store.position(entry.uuid, t0 + index)));

    expect(await scriptCalls()).toBe(before + 2);
    expect(answers).toEqual(line.map((entry, index) => ({ position: index + 1, ticket: entry.ticket, served: 0 })));
    expect((await store.get(line[299].uuid))?.lastSeen).toBe(t0 + 299);
    expect((await store.get(line[7].uuid))?.lastSeen).toBe(t0 + 7);
  });
});

describe("redis queue store's last-seen marks", () => {
  /** How many times Redis has run `command` so far, from scripts included. */
  async function commandCalls(command: string): Promise<number> {
    const stats = await admin.info('commandstats');
    return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  }

  it("should mark a polled visitor seen with one write, in the sweep's order only, and still tell its last-seen", async () => {
    const store = open(server.url, newRoom(), sentToRedis);
    const line = await holdInOrder(store, ['a', 'b', 'c', 'd']);
    await store.position(line[0].uuid, t0);
    const before = { hset: await commandCalls('hset'), zadd: await commandCalls('zadd') };

    await Promise.all(line.map((entry, index) => store.position(entry.uuid, t0 + policy.abandonMs + index)));

    // One write a poll: the sweep's sorted set, not the entry's hash too.
    expect((await commandCalls('hset')) - before.hset).toBe(0);
    expect((await commandCalls('zadd')) - before.zadd).toBe(line.length);
    expect((await store.get(line[1].uuid))?.lastSeen).toBe(t0 + policy.abandonMs + 1);
    // Seen by their polls alone, so neither the sweep nor a release drops them as silent.
    const later = t0 + policy.abandonMs + 10;
    expect(await store.dropAbandoned(later, policy.abandonMs)).toBe(0);
    const release = await store.release(2, t0 + 2 * policy.abandonMs, policy);
    expect(release.released.map((entry) => [entry.uuid, entry.lastSeen])).toEqual([
      [line[0].uuid, t0 + policy.abandonMs],
      [line[1].uuid, t0 + policy.abandonMs + 1],
    ]);
    expect((await store.get(line[0].uuid))?.lastSeen).toBe(t0 + policy.abandonMs);
    expect(await store.position(line[2].uuid, t0 + 2 * policy.abandonMs)).toEqual({ position: 1, ticket: line[2].ticket, served: 2 });
  });
});

/** Script calls Redis has run so far (EVALSHA, and EVAL the first time on a connection). */
async function scriptCalls(): Promise<number> {
  const stats = await admin.info('commandstats');
  const calls = (command: string) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return calls('evalsha') + calls('eval');
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Ranks Redis has looked up so far: each poll sent to Redis looks one up, one answered from a copy none. */
async function rankCalls(redis = admin): Promise<number> {
  const stats = await redis.info('commandstats');
  return Number(/cmdstat_zrank:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

/** Until `store` answers a poll of `uuid` from its copy of the line, without Redis. */
async function untilCopied(store: RedisStore, uuid: string, now = t0, redis = admin): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const before = await rankCalls(redis);
    await store.position(uuid, now);
    if ((await rankCalls(redis)) === before) return;
    await pause(20);
  }
  throw new Error('The store never answered from its copy of the line.');
}

/** The asks `store` makes for its arrivals to be logged, `ARRIVALS_LOGGED_MS` after them: apart from the calls a test counts. */
function logAsks(store: RedisStore): () => number {
  const run = jest.spyOn(store as unknown as { run: (name: string) => unknown }, 'run');
  return () => run.mock.calls.filter(([name]) => name === 'waitingRoomLogArrivals').length;
}

/** Until no arrival in `room` waits to be logged (`ARRIVALS_LOGGED_MS`): its instance asks for them then. */
async function untilLogged(room: string): Promise<void> {
  for (let attempt = 0; attempt < 100 && (await admin.hget(`${room}meta`, 'wa')) !== null; attempt++) await pause(10);
  expect(await admin.hget(`${room}meta`, 'wa')).toBeNull();
}

/**
 * Until `store`'s answers for `uuids` are those Redis gives (`truth`): another instance's changes
 * reach the copy within moments, through the log, well before the copy's own check after a second
 * without change (BLOCK_MS) would find it wrong and read the line again.
 */
async function untilSame(store: RedisStore, truth: RedisStore, uuids: readonly string[], now = t0): Promise<void> {
  let copied: unknown[] = [];
  let expected: unknown[] = [];
  for (let attempt = 0; attempt < BLOCK_MS / 25; attempt++) {
    expected = await Promise.all(uuids.map((uuid) => truth.position(uuid, now)));
    copied = await Promise.all(uuids.map((uuid) => store.position(uuid, now)));
    if (JSON.stringify(copied) === JSON.stringify(expected)) return;
    await pause(20);
  }
  expect(copied).toEqual(expected);
}

describe("redis queue store's copy of the line", () => {
  it('should answer polls from its copy with no call to Redis, as Redis would, and mark them seen together, late', async () => {
    const room = newRoom();
    const [one, two, truth] = [open(server.url, room), open(server.url, room), open(server.url, room, sentToRedis)];
    const line = await holdInOrder(one, ['a', 'b', 'c', 'd', 'e', 'f']);
    await one.release(1, t0 + 1, policy);
    const waiting = line.slice(1);
    await untilCopied(two, waiting[0].uuid);
    const expected = await Promise.all(waiting.map((entry) => truth.position(entry.uuid, t0 + 100)));
    await pause(SEEN_FLUSH_MS * 2);
    const before = await scriptCalls();

    const answers = await Promise.all(waiting.map((entry, index) => two.position(entry.uuid, t0 + 100 + index)));

    expect(await scriptCalls()).toBe(before);
    expect(answers).toEqual(expected);
    expect(answers.map((answer) => answer?.position)).toEqual([1, 2, 3, 4, 5]);
    await pause(SEEN_FLUSH_MS * 2);
    // One call for all the marks, each at its own poll's time.
    expect(await scriptCalls()).toBe(before + 1);
    expect(await admin.zscore(`${room}seen`, waiting[4].uuid)).toBe(String(t0 + 104));
  });

  it('should write the marks that wait before any other call, so that it reads every poll it answered', async () => {
    const room = newRoom();
    const store = open(server.url, room);
    const line = await holdInOrder(store, ['a', 'b', 'c']);
    await untilCopied(store, line[0].uuid);
    const later = t0 + policy.abandonMs + 1;
    await Promise.all(line.slice(1).map((entry) => store.position(entry.uuid, later)));
    expect((await store.get(line[2].uuid))?.lastSeen).toBe(later);
    // The silent head is dropped; the two who polled are not.
    expect(await store.dropAbandoned(later + 1, policy.abandonMs)).toBe(1);
    expect((await store.stats(later)).waiting).toBe(2);
  });

  it('should space the marks of one place by its away time, and never let the sweep take a visitor who polls', async () => {
    const room = newRoom();
    const awayMs = 600_000;
    const spacing = seenSpacing(awayMs);
    const store = open(server.url, room, { awayMs });
    const [present, silent] = await holdInOrder(store, ['present', 'silent']);
    await untilCopied(store, present.uuid);
    const marks: number[] = [];
    let dropped = 0;
    // A page polling every 5 s for twice the away time, the sweep running beside it.
    for (let now = t0 + 5000; now <= t0 + 2 * awayMs; now += 5000) {
      await store.position(present.uuid, now);
      const seen = Number((await store.get(present.uuid))?.lastSeen);
      if (marks.at(-1) !== seen) marks.push(seen);
      expect(now - seen).toBeLessThanOrEqual(2 * spacing + 5000);
      dropped += await store.dropAbandoned(now, awayMs);
    }
    expect(dropped).toBe(1);
    expect(await store.get(silent.uuid)).toBeUndefined();
    expect((await store.stats(t0 + 2 * awayMs)).waiting).toBe(1);
    // 240 polls, written once in one to two spacings.
    expect(marks.length).toBeGreaterThanOrEqual((2 * awayMs) / (2 * spacing + 5000));
    expect(marks.length).toBeLessThanOrEqual((2 * awayMs) / spacing);
  });

  it('should read its own writes at once: a release, an arrival and a place left are told by the next poll', async () => {
    const room = newRoom();
    const [store, truth] = [open(server.url, room), open(server.url, room, sentToRedis)];
    const line = await holdInOrder(store, ['a', 'b', 'c', 'd']);
    await untilCopied(store, line[0].uuid);

    await store.release(1, t0 + 1, policy);
    expect(await store.position(line[0].uuid, t0 + 1)).toEqual({ position: 0, ticket: line[0].ticket, served: 1 });
    expect(await store.position(line[1].uuid, t0 + 1)).toEqual({ position: 1, ticket: line[1].ticket, served: 1 });
    const late = await store.hold('e', 0, get, t0 + 2);
    expect(await store.position(late.uuid, t0 + 2)).toEqual({ position: 4, ticket: late.ticket, served: 1 });
    // b walks away from the middle: the sweep drops it, and c moves up.
    const later = t0 + policy.abandonMs + 10;
    await Promise.all([line[2], line[3], late].map((entry) => store.touch(entry.uuid, later)));
    expect(await store.dropAbandoned(later, policy.abandonMs)).toBe(1);
    expect(await store.position(line[1].uuid, later)).toBeUndefined();
    expect(await store.position(line[2].uuid, later)).toEqual({ position: 1, ticket: line[2].ticket, served: 1 });
    expect(await store.position(late.uuid, later)).toEqual(await truth.position(late.uuid, later));
  });

  it('should not read the line again for arrivals Redis holds that wait to be logged', async () => {
    const room = newRoom();
    const store = open(server.url, room);
    const line = await holdInOrder(store, ['a', 'b']);
    await untilLogged(room);
    await untilCopied(store, line[0].uuid);
    const heads = jest.spyOn(store as unknown as { run: (name: string) => unknown }, 'run');
    const [late] = uuidsFor(1);
    expect(await arrive(room, [late])).toMatchObject({ arrivalsWait: 1 });
    // Past the copy's check after a second without change: three places in Redis, two logged.
    await pause(BLOCK_MS + 300);
    expect(heads.mock.calls.filter(([name]) => name === 'waitingRoomLogHead')).toEqual([]);
    expect(await store.position(late, t0)).toEqual({ position: 3, ticket: 3, served: 0 });
    expect(await command('waitingRoomLogArrivals', room, [])).toMatchObject({ arrivalsWait: 0 });
    await untilCopied(store, late);
    expect(await store.position(late, t0)).toEqual({ position: 3, ticket: 3, served: 0 });
  });

  it('should follow every change other instances make to the line: arrivals, releases at the head or drawn at random, walk-aways, places replaced', async () => {
    type Step = { kind: 'hold'; who: number } | { kind: 'release'; count: number; random: boolean } | { kind: 'sweep' } | { kind: 'poll'; which: number };
    const steps = fc.array<Step>(
      fc.oneof(
        fc.record({ kind: fc.constant('hold' as const), who: fc.nat(9) }),
        fc.record({ kind: fc.constant('release' as const), count: fc.integer({ min: 1, max: 3 }), random: fc.boolean() }),
        fc.record({ kind: fc.constant('sweep' as const) }),
        fc.record({ kind: fc.constant('poll' as const), which: fc.nat() }),
      ),
      { minLength: 1, maxLength: 14 },
    );
    await fc.assert(
      fc.asyncProperty(steps, async (plan) => {
        const room = newRoom();
        const [writer, reader, truth] = [open(server.url, room), open(server.url, room, sentToRedis), open(server.url, room, sentToRedis)];
        const copy = open(server.url, room);
        const uuids: string[] = [];
        let now = t0;
        for (const step of plan) {
          now += 1000;
          if (step.kind === 'hold') uuids.push((await writer.hold(`s${step.who}`, 0, get, now)).uuid);
          else if (step.kind === 'release') await writer.release(step.count, now, { ...policy, random: step.random });
          else if (step.kind === 'sweep') await writer.dropAbandoned(now + policy.abandonMs - 2500, policy.abandonMs);
          else if (uuids.length > 0) await reader.position(uuids[step.which % uuids.length], now);
          if (uuids.length === 0) continue;
          await untilSame(copy, truth, uuids, now);
          // Those still waiting are answered by the copy itself, not by Redis.
          const expected = await Promise.all(uuids.map((uuid) => truth.position(uuid, now)));
          const waiting = uuids.filter((_, index) => (expected[index]?.position ?? 0) > 0);
          if (waiting.length === 0) continue;
          for (const uuid of waiting) await untilCopied(copy, uuid, now);
          const before = await rankCalls();
          const copied = await Promise.all(waiting.map((uuid) => copy.position(uuid, now)));
          expect(await rankCalls()).toBe(before);
          expect(copied).toEqual(waiting.map((uuid) => expected[uuids.indexOf(uuid)]));
        }
        await Promise.all([writer, reader, truth, copy].map((store) => store.close()));
      }),
      { numRuns: 25 },
    );
  }, 60_000);

  it('should not read the line again for a change logged between a read that found none and its check', async () => {
    const room = newRoom();
    const [store, other] = [open(server.url, room), open(server.url, room)];
    const line = await holdInOrder(store, ['a', 'b', 'c']);
    await untilLogged(room);
    await untilCopied(store, line[0].uuid);
    const runs = jest.spyOn(store as unknown as { run: (name: string) => unknown }, 'run');
    // The copy's next blocking read finds nothing; the release lands as that read ends, before the check.
    const tail = (store as unknown as { tail: Redis }).tail;
    const read = tail.xread.bind(tail) as (...args: unknown[]) => Promise<unknown>;
    const released = new Promise<void>((resolve) => {
      jest.spyOn(tail, 'xread').mockImplementationOnce(async (...args: unknown[]) => {
        await read(...args);
        await other.release(1, t0 + 1, policy);
        resolve();
        return null;
      });
    });
    await released;
    await untilCopied(store, line[1].uuid, t0 + 1);
    expect(await store.position(line[1].uuid, t0 + 1)).toEqual({ position: 1, ticket: line[1].ticket, served: 1 });
    await pause(100);
    expect(runs.mock.calls.filter(([name]) => name === 'waitingRoomLogHead')).toEqual([]);
    expect(await store.position(line[2].uuid, t0 + 1)).toEqual({ position: 2, ticket: line[2].ticket, served: 1 });
  });

  it("should follow a draw's keying from the log, without reading the line again", async () => {
    const room = newRoom();
    const [one, two, truth] = [open(server.url, room), open(server.url, room), open(server.url, room, sentToRedis)];
    await holdInOrder(one, ['early']);
    await one.startPrequeue('drop', '0f'.repeat(32));
    await holdInOrder(one, ['p', 'q', 'r', 's']);
    await one.openEvent('drop');
    const entrants = await one.entrantsOf('drop');
    const everyone = [...(await holdInOrder(one, ['late'])).map((entry) => entry.uuid), ...entrants];
    await untilCopied(two, entrants[0]);
    const snapshots = jest.spyOn(two as unknown as { run: (name: string) => unknown }, 'run');

    await drawInOrder(one, 'drop', [...entrants].reverse(), 1);

    await untilSame(two, truth, everyone);
    expect(snapshots.mock.calls.filter(([name]) => name === 'waitingRoomLogHead')).toEqual([]);
    expect((await Promise.all(entrants.map((uuid) => two.position(uuid, t0)))).map((answer) => answer?.position)).toEqual([5, 4, 3, 2]);
  });

  it("should follow a draw's keying, whose keys move places from anywhere, with every position and ticket right after each page", async () => {
    const room = newRoom();
    const [one, two, truth] = [open(server.url, room), open(server.url, room), open(server.url, room, sentToRedis)];
    const [early] = await holdInOrder(one, ['early']);
    await one.startPrequeue('drop', '0f'.repeat(32));
    await holdInOrder(
      one,
      Array.from({ length: 300 }, (_, i) => `p${i}`),
    );
    const entrants = await one.entrantsOf('drop');
    await untilCopied(two, entrants[0]);
    const heads = jest.spyOn(two as unknown as { run: (name: string) => unknown }, 'run');
    // Keys that take places from anywhere, some sharing their first 32 bits (a group of slots):
    // each page moves its entrants among those keyed before.
    const order = [...entrants].sort((a, b) => (drawKey('0f'.repeat(32), a) < drawKey('0f'.repeat(32), b) ? -1 : 1));
    const keyOf = (rank: number) => rankKey(Math.floor(rank / 3)).slice(0, 8) + rank.toString(16).padStart(56, '0');
    const byArrival = entrants.map((uuid) => ({ uuid, key: keyOf(order.indexOf(uuid)) }));
    const late: string[] = [];
    for (let start = 0; start < 300; start += 40) {
      if (start === 280) {
        await one.openEvent('drop');
        late.push(...(await holdInOrder(one, ['late'])).map((entry) => entry.uuid));
      }
      const { mark } = await one.unkeyedEntrants('drop', 40);
      await one.addDrawKeys('drop', byArrival.slice(start, start + 40), mark);
      const everyone = [early.uuid, ...entrants, ...late];
      await untilSame(two, truth, everyone);
      const line = await admin.zrange(`${room}waiting`, '0', '-1', 'WITHSCORES');
      // Everyone once, each entry's ticket its place's in line, and the keyed so far in key order.
      expect(line.filter((_, i) => i % 2 === 0).sort()).toEqual([...everyone].sort());
      for (let i = 0; i < line.length; i += 2) expect((await truth.get(line[i]))?.ticket).toBe(Number(line[i + 1]));
      const keyed = new Set(byArrival.slice(0, start + 40).map((entry) => entry.uuid));
      expect(line.filter((uuid, i) => i % 2 === 0 && keyed.has(uuid))).toEqual(order.filter((uuid) => keyed.has(uuid)));
    }
    expect(await one.placeDrawn('drop', 1000)).toEqual({ placed: 300, done: true });
    expect(heads.mock.calls.filter(([name]) => name === 'waitingRoomLogHead')).toEqual([]);
    expect((await Promise.all(order.map((uuid) => two.position(uuid, t0)))).map((answer) => answer?.position)).toEqual(order.map((_, i) => i + 2));
    expect((await two.position(late[0], t0))?.position).toBe(302);
    // A copy loaded now reads the line in pages cut by rank, across the draw's 2^36 slots.
    const joining = open(server.url, room);
    await untilCopied(joining, early.uuid);
    await untilSame(joining, truth, [early.uuid, ...order, ...late]);
    // A release keeps the ticket the draw gave.
    const { released } = await one.release(2, t0, policy);
    const ticket = (await truth.position(order[1], t0))?.ticket;
    expect(released.map((entry) => entry.uuid)).toEqual([early.uuid, order[0]]);
    expect((await truth.get(order[0]))?.ticket).toBe(released[1].ticket);
    expect(ticket).toBeGreaterThan(released[1].ticket);
  }, 60_000);

  it('should follow a place moved ahead with a code by another instance, without reading the line again, and load code holders first', async () => {
    const room = newRoom();
    const [one, two, truth] = [open(server.url, room), open(server.url, room), open(server.url, room, sentToRedis)];
    const line = (await holdInOrder(one, ['a', 'b', 'c', 'd'])).map((entry) => entry.uuid);
    await untilCopied(two, line[0]);
    const heads = jest.spyOn(two as unknown as { run: (name: string) => unknown }, 'run');
    const limits = { address: '', perPlace: 3, perAddress: 3, windowMs: 60_000 };

    await one.addCodes(['h1', 'h2'], t0, t0 + 60_000);
    await one.useCode('c', 'h1', t0, limits);
    await one.useCode('d', 'h2', t0, limits);

    await untilSame(two, truth, line);
    expect(heads.mock.calls.filter(([name]) => name === 'waitingRoomLogHead')).toEqual([]);
    expect((await Promise.all(line.map((uuid) => two.position(uuid, t0)))).map((answer) => answer?.position)).toEqual([3, 4, 1, 2]);
    // A copy that loads now reads the code holders, then the rest, and answers from itself.
    const three = open(server.url, room);
    await untilCopied(three, line[0]);
    expect((await Promise.all(line.map((uuid) => three.position(uuid, t0)))).map((answer) => answer?.position)).toEqual([3, 4, 1, 2]);
  });

  it('should stop answering from a copy of a line Redis no longer holds', async () => {
    const room = newRoom();
    const store = open(server.url, room);
    const [a] = await holdInOrder(store, ['a', 'b']);
    await untilCopied(store, a.uuid);
    await admin.del(...(await admin.keys(`${room}*`)));
    // Checked against Redis after a second without a change: the room emptied, the copy is read again.
    for (let attempt = 0; attempt < 100 && (await store.position(a.uuid, t0)) !== undefined; attempt++) await pause(50);
    expect(await store.position(a.uuid, t0)).toBeUndefined();
  });
});

describe('redis queue store when Redis fails', () => {
  let faulty: RedisServer;
  const fast: RedisStoreOptions = { commandTimeoutMs: 500, connectWaitMs: 500 };
  beforeAll(async () => {
    faulty = await startRedisServer();
  });
  afterAll(async () => {
    await faulty?.close();
  });

  it('should fail fast while Redis is frozen, then work again with the line intact and no late change', async () => {
    const store = open(faulty.url, newRoom(), fast);
    const [a, b, c] = await holdInOrder(store, ['a', 'b', 'c'], post);
    await store.release(1, t0, policy);
    faulty.pause();
    try {
      const calls = [
        store.placeInLine(b.uuid, t0 + 1),
        store.hold('late', 0, get, t0 + 1),
        store.release(1, t0 + 1, policy),
        store.releaseDue(t0 + 60_000, policy),
        store.takeHeld(a.uuid, 'a'),
        store.admit('x', t0 + 1, policy),
        store.setPaused(true),
      ];
      for (const call of calls) await expect(call).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      faulty.resume();
    }
    // Redis now runs the calls it received while frozen: each must refuse, past its deadline.
    expect(await store.stats(t0 + 2)).toMatchObject({ waiting: 2, active: 1, released: 1, paused: false });
    expect(await positions(store, [a, b, c], t0 + 2)).toEqual([0, 1, 2]);
    expect(await store.takeHeld(a.uuid, 'a')).toEqual(post);
  });

  it('should fail fast while Redis is down, and come back by itself when it is up again', async () => {
    const room = newRoom();
    const store = open(faulty.url, room, fast);
    await store.hold('a', 0, get, t0);
    await faulty.stop();
    await expect(store.stats(t0)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.hold('b', 0, get, t0)).rejects.toBeInstanceOf(StoreUnavailableError);
    await faulty.start();
    // A Redis without persistence comes back empty, and without the store's scripts.
    expect(await eventually(() => store.stats(t0))).toEqual({ waiting: 0, pending: 0, active: 0, released: 0, paused: false, arrived: 0 });
    const b = await store.hold('b', 0, get, t0);
    expect((await store.placeInLine(b.uuid, t0))?.position).toBe(1);
  }, 20_000);

  it('should refuse polls rather than answer them from its copy while Redis is down, and not answer from the old copy once it is back', async () => {
    const store = open(faulty.url, newRoom(), fast);
    const [a] = await holdInOrder(store, ['a', 'b']);
    const look = new Redis(faulty.url);
    try {
      await untilCopied(store, a.uuid, t0, look);
    } finally {
      look.disconnect();
    }
    await faulty.stop();
    let refused: unknown;
    for (let attempt = 0; attempt < 40 && !refused; attempt++) {
      refused = await store.position(a.uuid, t0).then(
        () => undefined,
        (error: unknown) => error,
      );
      if (!refused) await pause(25);
    }
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    await faulty.start();
    // A Redis without persistence comes back empty: the place is gone, and the copy says so too.
    expect(await eventually(() => store.position(a.uuid, t0))).toBeUndefined();
    const b = await store.hold('b', 0, get, t0);
    expect(await eventually(() => store.position(b.uuid, t0))).toEqual({ position: 1, ticket: 1, served: 0 });
  }, 20_000);

  it('should load its scripts again when Redis has forgotten them', async () => {
    const store = open(faulty.url, newRoom(), fast);
    const a = await store.hold('a', 0, get, t0);
    const scripts = new Redis(faulty.url);
    try {
      await scripts.script('FLUSH');
    } finally {
      scripts.disconnect();
    }
    expect((await store.placeInLine(a.uuid, t0))?.position).toBe(1);
  });

  it('should fail fast when created while Redis is down', async () => {
    await faulty.stop();
    try {
      const store = open(faulty.url, newRoom(), fast);
      await expect(store.admit('a', t0, policy)).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await faulty.start();
    }
  });

  it('should refuse every call once closed, and leave a client it was given open', async () => {
    const client = new Redis(faulty.url);
    try {
      const store = new RedisStore(client, { prefix: newRoom() });
      await store.hold('a', 0, get, t0);
      await store.close();
      await expect(store.stats(t0)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });
});
