import Redis from 'ioredis';
import { CLOCKS_APART_MS, PartedLine } from '../../server/store/redis/parted-line';
import { ARRIVALS_LOGGED_MS } from '../../server/store/redis/commands';
import { BLOCK_MS } from '../../server/store/redis/line-copy';
import { idInLane, laneOf, partOf } from '../../server/domain/lanes';
import { MAX_PARTS, partPrefix } from '../../server/store/redis/parts';
import { ROOM_FIELDS } from '../../server/config/room';
import type { Entry } from '../../server/store/types';
import { eventually } from '../support/eventually';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { describePartedLine } from './parted-line-contract';
import { describeQueueStore } from './store-contract';

let server: RedisServer;
const opened: PartedLine[] = [];
beforeAll(async () => {
  server = await startRedisServer();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((line) => line.close()));
});
afterAll(async () => {
  await server?.close();
});

// One part: every rule of a store holds through the parts' composition (the pace, the moves, the
// served, the revocations' cursor), the tickets from the part's clock.
let rooms = 0;
describeQueueStore('a line split in one part', async () => {
  const line = new PartedLine(server.url, 1, { prefix: `whole${++rooms}:` });
  opened.push(line);
  return line;
});

// The parts on one Redis: the order, the ranks and the cuts; spec/server/redis-cluster.spec.ts
// runs the same on three primaries.
describePartedLine('on one Redis', (room) => {
  const line = new PartedLine(server.url, 3, { prefix: `${room}:` });
  opened.push(line);
  return line;
});

describe("one room's line split in parts, counted by each instance's copies of them", () => {
  const zcounts = async (admin: Redis) => Number(/cmdstat_zcount:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);

  it("should count the other parts in Redis until its copies hold all they logged before the place's ticket, then in the copies", async () => {
    const line = new PartedLine(server.url, 3, { prefix: 'copied:' });
    opened.push(line);
    const admin = new Redis(server.url);
    try {
      const held: Entry[] = [];
      for (let i = 0; i < 9; i++) {
        held.push(await line.hold(`copied-${i}`, 0, { method: 'GET', uri: '/checkout' }, 1_800_000_000_000));
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      const positions = () => Promise.all(held.map(async (entry) => (await line.position(entry.uuid, 1_800_000_000_000))?.position));

      const before = await zcounts(admin);
      expect(await positions()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(await zcounts(admin)).toBeGreaterThan(before);

      // A copy of a part where nothing changes learns it holds all at the end of a read's block.
      await new Promise((resolve) => setTimeout(resolve, BLOCK_MS + ARRIVALS_LOGGED_MS + CLOCKS_APART_MS));
      const fromCopies = async () => {
        const before = await zcounts(admin);
        const told = await positions();
        return { told, counted: (await zcounts(admin)) - before };
      };
      const copied = await eventually('every part counted from the copies', fromCopies, ({ counted }) => counted === 0, 5000);
      expect(copied).toEqual({ told: [1, 2, 3, 4, 5, 6, 7, 8, 9], counted: 0 });

      // Two arrivals in two parts, the second asked for at once: the first part's copy cannot
      // hold the first yet (arrivals are logged a moment later), so Redis counts it.
      const [first, second] = [0, 1].map((part) => {
        for (let n = 0; ; n++) if (partOf(`late-${n}`, 3) === part) return `late-${n}`;
      });
      await line.hold(first, 0, { method: 'GET', uri: '/checkout' }, 1_800_000_000_000);
      await new Promise((resolve) => setTimeout(resolve, 3));
      const last = await line.hold(second, 0, { method: 'GET', uri: '/checkout' }, 1_800_000_000_000);
      expect((await line.position(last.uuid, 1_800_000_000_000))?.position).toBe(11);
    } finally {
      admin.disconnect();
    }
  });
});

describe('priority codes in a line split in parts', () => {
  const limits = { address: 'a1', perPlace: 3, perAddress: 5, windowMs: 60_000 };
  const now = 1_800_000_000_000;

  it('should give a code back when its place is released between the code and the move, for another place to use', async () => {
    const line = new PartedLine(server.url, 3, { prefix: 'codes-between:' });
    opened.push(line);
    const sessions = ['between-0', 'between-1', 'between-2', 'between-3'];
    for (const session of sessions) {
      await line.hold(session, 0, { method: 'GET', uri: '/checkout' }, now);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await line.addCodes(['h'], now, now + 60_000);
    const first = line.parts[0];
    const takeCode = first.takeCode.bind(first);
    jest.spyOn(first, 'takeCode').mockImplementationOnce(async (...args) => {
      const taken = await takeCode(...args);
      await line.release(4, now + 1, { activeLimit: 100, sessionMs: 300_000, perMinute: 0, abandonMs: 180_000 });
      return taken;
    });
    expect(await line.useCode('between-3', 'h', now + 1, limits)).toEqual({ outcome: 'not-waiting' });
    expect(await line.codeCounts()).toEqual({ issued: 1, used: 0 });
    await line.hold('between-4', 0, { method: 'GET', uri: '/checkout' }, now + 2);
    await line.hold('between-5', 0, { method: 'GET', uri: '/checkout' }, now + 2);
    expect(await line.useCode('between-5', 'h', now + 2, limits)).toMatchObject({ outcome: 'moved', position: 1 });
    expect(await line.codeCounts()).toEqual({ issued: 1, used: 1 });
  });
});

describe('what a line split in parts does not do yet', () => {
  it('should refuse scheduled events and handoffs with a 409 that says so, and have none of them', async () => {
    const line = new PartedLine(server.url, 3, { prefix: 'refusing:' });
    opened.push(line);
    const refused = { kind: 'conflict', code: 'not_in_parts' };
    await expect(line.saveEvents(0, [])).rejects.toMatchObject({ ...refused, message: expect.stringContaining('scheduled events') });
    await expect(line.offerHandoff('k', { uuid: 'u', sessionId: 's', expiresAt: 1 } as never, 1)).rejects.toMatchObject({
      ...refused,
      message: expect.stringContaining('handoffs'),
    });
    expect(await line.events()).toEqual({ version: 0, events: [] });
  });
});

describe('the revocation feed of a line split in parts', () => {
  it("should list every part's revocations, and from its cursor only those made since", async () => {
    const line = new PartedLine(server.url, 3, { prefix: 'revoking:' });
    opened.push(line);
    const now = 1_800_000_000_000;
    const sessions = Array.from({ length: 6 }, (_, i) => `revoking-${i}`);
    const limits = { activeLimit: 30, sessionMs: 300_000 };
    expect(await Promise.all(sessions.map((session) => line.admit(session, now, limits)))).toEqual(sessions.map(() => true));
    expect(new Set(sessions.map((session) => partOf(session, 3))).size).toBeGreaterThan(1);

    for (const session of sessions.slice(0, 4)) expect(await line.revoke(session, now + 1)).toBe(true);
    const first = await line.revocations(undefined, now + 2);
    expect(new Set(first.revoked.map((revocation) => revocation.session))).toEqual(new Set(sessions.slice(0, 4)));
    expect(first.more).toBe(false);

    await line.revoke(sessions[4], now + 3);
    const next = await line.revocations(first.cursor, now + 4);
    expect(next.revoked.map((revocation) => revocation.session)).toEqual([sessions[4]]);
    expect((await line.revocations(next.cursor, now + 5)).revoked).toEqual([]);
  });
});

describe("a session's lane", () => {
  it('should give an id in the lane asked for, so that its place stays in one part however many parts', () => {
    for (const lane of [0, 1, 17, 63]) {
      const id = idInLane(lane);
      expect(laneOf(id)).toBe(lane);
      for (const parts of [2, 3, 7, 64]) expect(partOf(id, parts)).toBe(lane % parts);
    }
  });
});

describe("a part's prefix", () => {
  it('should name the part at its end, inside the hash tag with a number that puts it in its share of the slots', () => {
    expect(partPrefix('wr:', 1, 3)).toBe('wr~1/3:');
    expect(partPrefix('wr:shop:', 2, 3)).toBe('wr:shop~2/3:');
    expect(partPrefix('wr:{shop}:', 0, 3)).toMatch(/^wr:\{shop~0\/3\.\d+\}:$/);
  });

  it('should take as many parts as the configuration says a room may have', () => {
    expect(ROOM_FIELDS.parts.accepts).toBe(`1 to ${MAX_PARTS}`);
  });

  it('should refuse a count of parts out of range, and a prefix the scripts could not read', () => {
    expect(() => partPrefix('wr:', 0, 0)).toThrow('1 to 64 parts');
    expect(() => partPrefix('wr:', 0, 65)).toThrow('1 to 64 parts');
    expect(() => partPrefix('wr:', 3, 3)).toThrow('Part 3 is not one of 3');
    expect(() => partPrefix('wr', 0, 3)).toThrow("ends with ':'");
  });
});
