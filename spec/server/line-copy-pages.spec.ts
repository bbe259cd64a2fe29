import Redis from 'ioredis';
import { defineStoreCommands, SCRIPT_KEYS } from '../../server/store/redis/commands';
import { LineCopy } from '../../server/store/redis/line-copy';
import { RedisStore } from '../../server/store/redis/redis-store';
import type { Entry, HeldRequest, ReleasePolicy } from '../../server/store/types';
import { startRedisServer, type RedisServer } from '../support/redis-server';

jest.setTimeout(60_000);

const get: HeldRequest = { method: 'GET', uri: '/checkout?item=42' };
const policy: ReleasePolicy = { activeLimit: 1_000_000, sessionMs: 300_000, perMinute: 180, abandonMs: 3_600_000 };
const t0 = 1_700_000_000_000;
/** Places waiting before a gateway joins: ten pages of the copy's. */
const PLACES = 50_000;
/** No Redis call may take longer than this, in µs (SLOWLOG's unit). */
const SLOW_US = 50_000;

let server: RedisServer;
let admin: Redis;
const room = 'big:';
let writer: RedisStore;
/** Fills the line before the tests: its calls sent by the thousand may wait longer than a gateway's. */
let filler: RedisStore;
const held: Entry[] = [];
let sessions = 0;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Holds `count` new places through the store's own calls, sent together (auto-pipelined). */
async function arrive(count: number, now = t0, store = writer): Promise<Entry[]> {
  const calls: Promise<Entry>[] = [];
  for (let i = 0; i < count; i++) calls.push(store.hold(`s${++sessions}`, 0, get, now));
  return Promise.all(calls);
}

/** Ranks Redis has looked up so far: a poll sent to Redis looks one up, one answered from a copy none. */
async function rankCalls(): Promise<number> {
  const stats = await admin.info('commandstats');
  return Number(/cmdstat_zrank:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

/** Calls that took longer than SLOW_US since the last reset, by command; only `commands` when given. */
async function slowCalls(commands?: readonly string[]): Promise<string[]> {
  const entries = (await admin.slowlog('GET', 128)) as [number, number, number, string[]][];
  return entries
    .filter(([, , , command]) => !commands || commands.includes(command[0].toLowerCase()))
    .map(([, , micros, command]) => `${command.slice(0, 2).join(' ')}: ${micros} µs`);
}

/** The positions Redis holds: each waiting uuid's rank, 1 for the head. */
async function redisLine(): Promise<Map<string, number>> {
  const uuids = await admin.zrange(`${room}waiting`, '0', '-1');
  return new Map(uuids.map((uuid, index) => [uuid, index + 1]));
}

beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
  writer = new RedisStore(server.url, { prefix: room, localLine: false });
  filler = new RedisStore(server.url, { prefix: room, localLine: false, commandTimeoutMs: 10_000 });
  // One call first loads the scripts; then a thousand at a time.
  held.push(...(await arrive(1, t0, filler)));
  while (held.length < PLACES) held.push(...(await arrive(Math.min(1000, PLACES - held.length), t0, filler)));
  await filler.close();
});
afterAll(async () => {
  await writer?.close();
  admin?.disconnect();
  await server?.close();
});
beforeEach(async () => {
  await admin.config('SET', 'slowlog-log-slower-than', String(SLOW_US));
  await admin.slowlog('RESET');
});

describe("a gateway's copy of a long line", () => {
  it('should load in pages while arrivals, releases and polls flow, no Redis call over 50 ms, none refused, then answer as Redis does', async () => {
    const gateway = new RedisStore(server.url, { prefix: room });
    let refused = 0;
    let flowing = true;
    let now = t0 + 1;
    const traffic = (async () => {
      while (flowing) {
        now++;
        const steps: Promise<unknown>[] = [
          arrive(20, now).then((entries) => held.push(...entries)),
          writer.release(5, now, policy),
          ...held.slice(-10).map((entry) => writer.position(entry.uuid, now)),
        ];
        for (const step of steps) step.catch(() => refused++);
        await Promise.allSettled(steps);
      }
    })();
    try {
      // The first poll starts the copy; until it is loaded, polls go to Redis.
      const first = held.at(-1)!;
      expect((await gateway.position(first.uuid, now))?.position).toBeGreaterThan(0);
      let answered = false;
      for (let attempt = 0; attempt < 200 && !answered; attempt++) {
        await pause(50);
        const before = await rankCalls();
        await gateway.position(first.uuid, now);
        answered = (await rankCalls()) === before;
      }
      expect(answered).toBe(true);
    } finally {
      flowing = false;
      await traffic;
    }

    expect(refused).toBe(0);
    expect(await slowCalls()).toEqual([]);
    // Once the log has brought the last changes, every answer is Redis's, and from the copy.
    await pause(200);
    const truth = await redisLine();
    const sample = [...truth.keys()].filter((_, index) => index % 97 === 0);
    const before = await rankCalls();
    const answers = await Promise.all(sample.map(async (uuid) => (await gateway.position(uuid, now))?.position));
    expect(await rankCalls()).toBe(before);
    expect(answers).toEqual(sample.map((uuid) => truth.get(uuid)));
    await gateway.close();
  });

  it('should hold what Redis holds after the log was trimmed past it during its pages, and follow on', async () => {
    const client = new Redis(server.url);
    const tail = new Redis(server.url);
    defineStoreCommands(client);
    const keys = SCRIPT_KEYS.map((key) => room + key);
    let pages = 0;
    let trimmed = false;
    // After the second page: places leave from the pages read and from those to come, others
    // arrive, and the log is cut to nothing before the copy reads it.
    const pagedTail = new Proxy(tail, {
      get(target, name, receiver) {
        if (name !== 'zrangebyscore') return Reflect.get(target, name, receiver) as unknown;
        return async (...args: Parameters<Redis['zrangebyscore']>) => {
          const page = await target.zrangebyscore(...args);
          if (++pages === 2 && !trimmed) {
            trimmed = true;
            await writer.release(100, t0 + 5, policy);
            // A session's place moved to a session that had one: that one leaves the line.
            await writer.moveSession('s20001', 's8001', 0);
            await writer.moveSession('s30001', 's40001', 0);
            await arrive(100, t0 + 5);
            await admin.xtrim(`${room}log`, 'MAXLEN', 0);
          }
          return page;
        };
      },
    });
    const copy = new LineCopy({
      tail: pagedTail,
      keys: { log: `${room}log`, meta: `${room}meta`, waiting: `${room}waiting` },
      head: async (pageSize) =>
        (
          await client.waitingRoomLogHead(...(keys as [string, string, string, string, string, string, string, string, string, string]), room, '0', pageSize)
        )[2],
      pageSize: 5000,
    });
    copy.start();
    try {
      for (let attempt = 0; attempt < 200 && !copy.ready; attempt++) await pause(25);
      expect(trimmed).toBe(true);
      expect(copy.ready).toBe(true);
      await arrive(10, t0 + 6);
      await writer.release(10, t0 + 6, policy);
      await pause(100);

      // The copy's own reads (this test's changes and its look at the whole line are not).
      expect(await slowCalls(['zrangebyscore', 'xread', 'hget', 'exec', 'zcard'])).toEqual([]);
      const truth = await redisLine();
      const wrong = [...truth].filter(([uuid, position]) => copy.position(uuid)?.position !== position);
      expect(wrong.slice(0, 5)).toEqual([]);
      expect(truth.size).toBeGreaterThan(PLACES - 1000);
    } finally {
      copy.close();
      client.disconnect();
      tail.disconnect();
    }
  });
});
