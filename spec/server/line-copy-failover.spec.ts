import Redis from 'ioredis';
import { RedisStore } from '../../server/store/redis/redis-store';
import type { HeldRequest, Position } from '../../server/store/types';
import { eventually } from '../support/eventually';
import { startSentinelSet, type SentinelSet } from '../support/redis-topologies';

/**
 * Replication is asynchronous: a replica promoted may lack the last writes of the primary it
 * replaces. A gateway's copy of the line read those writes from the old primary's log; once the
 * connection breaks, it must not answer for them, only for what the new primary confirms.
 */
jest.setTimeout(90_000);

const get: HeldRequest = { method: 'GET', uri: '/checkout' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let set: SentinelSet | undefined;
afterAll(async () => {
  await set?.close();
});

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
  const sentinels = (set = await startSentinelSet());
  const target = { kind: 'sentinel' as const, sentinels: sentinels.sentinels, name: sentinels.name, tls: false };
  const writer = new RedisStore(target, { localLine: false });
  const gateway = new RedisStore(target);
  try {
    const kept = await writer.hold('a', 0, get, Date.now());
    await writer.hold('b', 0, get, Date.now());
    await sentinels.inSync();
    await untilCopied(gateway, kept.uuid, () => Promise.resolve(sentinels.primary.port));

    // The replica frozen, its link's buffers full: what the primary writes next dies with it.
    sentinels.replica.pause();
    const filler = new Redis({ port: sentinels.primary.port, host: '127.0.0.1' });
    await filler.set('filler', 'x'.repeat(24 * 1024 * 1024));
    filler.disconnect();
    const lost = await writer.hold('c', 0, get, Date.now());
    expect(await untilCopied(gateway, lost.uuid, () => Promise.resolve(sentinels.primary.port))).toMatchObject({ position: 3 });

    await sentinels.primary.kill();
    await pause(100);
    sentinels.replica.resume();
    // Every answer from now on, through the failover and after it: the lost place is never told a position.
    const answers: (Position | undefined | 'unavailable')[] = [];
    const promoted = eventually(
      'the replica promoted',
      () => sentinels.primaryPort(),
      (port) => port === sentinels.replica.port,
      30_000,
      200,
    );
    let polling = true;
    const polls = (async () => {
      while (polling) {
        answers.push(await gateway.position(lost.uuid, Date.now()).catch(() => 'unavailable' as const));
        await pause(50);
      }
    })();
    try {
      await promoted;
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
