import Redis from 'ioredis';
import { RedisStore } from '../../server/store/redis/redis-store';
import type { HeldRequest, Position, ReleasePolicy } from '../../server/store/types';
import { eventually } from '../support/eventually';
import { startSentinelSet, type SentinelSet } from '../support/redis-topologies';
import { cutOffReplica, untilPromoted } from './support/lost-writes';

/**
 * Replication is asynchronous: a replica promoted may lack the last writes of the primary it
 * replaces. A gateway's copy of the line read those writes from the old primary's log; once the
 * connection breaks, it must not answer for them, only for what the new primary confirms.
 */
jest.setTimeout(90_000);

const get: HeldRequest = { method: 'GET', uri: '/checkout' };
const policy: ReleasePolicy = { activeLimit: 100, sessionMs: 300_000, perMinute: 60, abandonMs: 3_600_000 };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const sets: SentinelSet[] = [];
afterAll(async () => {
  await Promise.all(sets.map((set) => set.close()));
});

/** A primary and its replica under Sentinels, and a store writing to them apart from the gateway's. */
async function sentinelStores(): Promise<{ sentinels: SentinelSet; writer: RedisStore; gateway: RedisStore }> {
  const sentinels = await startSentinelSet();
  sets.push(sentinels);
  const target = { kind: 'sentinel' as const, sentinels: sentinels.sentinels, name: sentinels.name, tls: false };
  return { sentinels, writer: new RedisStore(target, { localLine: false }), gateway: new RedisStore(target) };
}

/** Kills the primary and lets the replica go on. */
async function killPrimary(sentinels: SentinelSet): Promise<void> {
  await sentinels.primary.kill();
  await pause(100);
  sentinels.replica.resume();
}

/** Ranks a Redis has looked up so far: a poll sent to Redis looks one up, one answered from a copy none. */
async function rankCalls(port: number): Promise<number> {
  const client = new Redis({ port, host: '127.0.0.1' });
  try {
    return Number(/cmdstat_zrank:calls=(\d+)/.exec(await client.info('commandstats'))?.[1] ?? 0);
  } finally {
    client.disconnect();
  }
}

/** Until `store` answers `uuid` from its copy of the line, without asking the Redis on `port`. */
async function untilCopied(store: RedisStore, uuid: string, port: () => Promise<number>): Promise<Position | undefined> {
  return eventually(
    'the answer from the copy of the line',
    async () => {
      const at = await port();
      const before = await rankCalls(at);
      const answer = await store.position(uuid, Date.now());
      return (await rankCalls(at)) === before ? answer : undefined;
    },
    (answer) => answer !== undefined,
    20_000,
    50,
  );
}

it('should never answer for a place the promoted replica lacks, and answer from its copy again once read from the new primary', async () => {
  const { sentinels, writer, gateway } = await sentinelStores();
  try {
    const kept = await writer.hold('a', 0, get, Date.now());
    await writer.hold('b', 0, get, Date.now());
    await sentinels.inSync();
    await untilCopied(gateway, kept.uuid, () => Promise.resolve(sentinels.primary.port));

    await cutOffReplica(sentinels);
    const lost = await writer.hold('c', 0, get, Date.now());
    expect(await untilCopied(gateway, lost.uuid, () => Promise.resolve(sentinels.primary.port))).toMatchObject({ position: 3 });

    await killPrimary(sentinels);
    // Every answer from now on, through the failover and after it: the lost place is never told a position.
    const answers: (Position | undefined | 'unavailable')[] = [];
    let polling = true;
    const polls = (async () => {
      while (polling) {
        answers.push(await gateway.position(lost.uuid, Date.now()).catch(() => 'unavailable' as const));
        await pause(50);
      }
    })();
    try {
      await untilPromoted(sentinels);
      expect(await untilCopied(gateway, kept.uuid, () => Promise.resolve(sentinels.replica.port))).toMatchObject({ position: 1 });
    } finally {
      polling = false;
      await polls;
    }
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((answer) => answer !== undefined && answer !== 'unavailable')).toEqual([]);
    expect(await gateway.position(lost.uuid, Date.now())).toBeUndefined();
  } finally {
    await Promise.all([writer.close(), gateway.close()]);
  }
});

it('should move nobody back for releases the promoted replica lacks, and release those places again at a replay or the next step', async () => {
  const { sentinels, writer, gateway } = await sentinelStores();
  try {
    const places = [];
    for (const session of ['a', 'b', 'c', 'd']) places.push(await writer.hold(session, 0, get, Date.now()));
    const [first, second, third, last] = places;
    await sentinels.inSync();
    await untilCopied(gateway, last.uuid, () => Promise.resolve(sentinels.primary.port));

    await cutOffReplica(sentinels);
    expect((await writer.release(2, Date.now(), policy)).released.map((entry) => entry.uuid)).toEqual([first.uuid, second.uuid]);
    expect(await untilCopied(gateway, last.uuid, () => Promise.resolve(sentinels.primary.port))).toMatchObject({ position: 2 });

    // Every position told, to the places released and to those behind them, through the failover and after it.
    const told = new Map(places.map((place) => [place.uuid, [] as number[]]));
    let polling = true;
    const polls = (async () => {
      while (polling) {
        for (const [uuid, positions] of told) {
          const answer = await gateway.position(uuid, Date.now()).catch(() => undefined);
          if (answer) positions.push(answer.position);
        }
        await pause(20);
      }
    })();
    try {
      await killPrimary(sentinels);
      await untilPromoted(sentinels);
      expect(await untilCopied(gateway, last.uuid, () => Promise.resolve(sentinels.replica.port))).toMatchObject({ position: 2 });
    } finally {
      polling = false;
      await polls;
    }
    // The releases were lost indeed: the promoted replica holds the released places at the head again.
    expect((await writer.placeInLine(second.uuid, Date.now()))?.position).toBe(2);
    for (const [uuid, positions] of told) {
      expect(positions.length).toBeGreaterThan(0);
      expect({ uuid, positions }).toEqual({ uuid, positions: [...positions].sort((a, b) => b - a) });
    }
    expect(told.get(last.uuid)!.every((position) => position <= 2)).toBe(true);
    expect(told.get(first.uuid)!.every((position) => position === 0)).toBe(true);

    // A replay for one is let through at once; a place never released is not.
    expect(await gateway.releaseAgain(third.uuid, Date.now(), policy)).toBeUndefined();
    expect((await gateway.releaseAgain(first.uuid, Date.now(), policy))?.released.map((entry) => entry.uuid)).toEqual([first.uuid]);
    expect((await writer.get(first.uuid))?.state).toBe('released');
    // The release loop's next step gives the other again, even with no release due; neither moves anybody.
    const again = await gateway.releaseDue(Date.now(), { ...policy, perMinute: 0 });
    expect(again.released.map((entry) => entry.uuid)).toEqual([second.uuid]);
    expect((await writer.get(second.uuid))?.state).toBe('released');
    expect(await untilCopied(gateway, last.uuid, () => Promise.resolve(sentinels.replica.port))).toMatchObject({ position: 2 });
    expect((await gateway.releaseDue(Date.now(), { ...policy, perMinute: 0 })).released).toEqual([]);
    expect((await gateway.releaseAgain(first.uuid, Date.now(), policy))?.released ?? []).toEqual([]);
    expect((await gateway.release(1, Date.now(), policy)).released.map((entry) => entry.uuid)).toEqual([third.uuid]);
    expect(await untilCopied(gateway, last.uuid, () => Promise.resolve(sentinels.replica.port))).toMatchObject({ position: 1 });
  } finally {
    await Promise.all([writer.close(), gateway.close()]);
  }
});
