import { RedisStore } from '../../server/store/redis/redis-store';
import { StoreUnavailableError } from '../../server/store/errors';
import type { HeldRequest, ReleasePolicy } from '../../server/store/types';
import { eventually } from '../support/eventually';
import { startSentinelSet, type SentinelSet } from '../support/redis-topologies';
import { cutOffReplica, untilPromoted } from './support/lost-writes';

/**
 * The one path to a double replay: replication is asynchronous, so a replay marked on the primary
 * and not yet on its replica is taken again once the replica is promoted. With
 * REDIS_REPLAY_REPLICAS=0 (the default) the window is real, and docs/durability.md says so; with 1,
 * a mark no replica acknowledged is taken back and the replay refused as unavailable, so that the
 * request is sent once, by whichever primary the visitor's next try reaches.
 */
jest.setTimeout(90_000);

const policy: ReleasePolicy = { activeLimit: 100, sessionMs: 300_000, perMinute: 0, abandonMs: 300_000 };
const post: HeldRequest = { method: 'POST', uri: '/checkout', body: { contentType: 'application/x-www-form-urlencoded', raw: 'item=1' } };

let set: SentinelSet | undefined;
afterEach(async () => {
  await set?.close();
  set = undefined;
});

/** A released visitor's place in a fresh Sentinel set, and a store on it that waits for `replayReplicas`. */
async function releasedPlace(replayReplicas: number): Promise<{ sentinels: SentinelSet; store: RedisStore; uuid: string }> {
  const sentinels = (set = await startSentinelSet());
  const store = new RedisStore({ kind: 'sentinel', sentinels: sentinels.sentinels, name: sentinels.name, tls: false }, { localLine: false, replayReplicas });
  const entry = await store.hold('a', 0, post, Date.now());
  await store.release(1, Date.now(), policy);
  await sentinels.inSync();
  return { sentinels, store, uuid: entry.uuid };
}

/** Kills the primary and waits for the replica to be promoted. */
async function failOver(sentinels: SentinelSet): Promise<void> {
  const { primary } = sentinels;
  await primary.kill();
  sentinels.replica.resume();
  await untilPromoted(sentinels);
}

/** The store's first answer once it reaches the promoted replica (errors while it cannot, tried again). */
const takenOnceServed = (store: RedisStore, uuid: string) =>
  eventually(
    'the store on the promoted replica',
    () => store.takeHeld(uuid, 'a'),
    () => true,
    20_000,
    200,
  );

it('should take a replay again on a promoted replica that never received its mark, by default', async () => {
  const { sentinels, store, uuid } = await releasedPlace(0);
  try {
    await cutOffReplica(sentinels);
    expect(await store.takeHeld(uuid, 'a')).toEqual(post);

    await failOver(sentinels);
    expect(await takenOnceServed(store, uuid)).toEqual(post);
  } finally {
    await store.close();
  }
});

it('should refuse a replay no replica acknowledged, with REDIS_REPLAY_REPLICAS=1, and send it once after the failover', async () => {
  const { sentinels, store, uuid } = await releasedPlace(1);
  try {
    await cutOffReplica(sentinels);
    await expect(store.takeHeld(uuid, 'a')).rejects.toThrow(StoreUnavailableError);

    await failOver(sentinels);
    // No replica left to acknowledge: the replay waits (fails closed) until the old primary is back as one.
    await eventually(
      'the store on the promoted replica',
      () => store.stats(Date.now()),
      () => true,
      20_000,
      200,
    );
    await expect(store.takeHeld(uuid, 'a')).rejects.toThrow(/No replica acknowledged/);
    await sentinels.restart(sentinels.primary);
    expect(
      await eventually(
        'a replica to acknowledge',
        () => store.takeHeld(uuid, 'a'),
        () => true,
        30_000,
        200,
      ),
    ).toEqual(post);
    expect(await store.takeHeld(uuid, 'a')).toBeUndefined();
  } finally {
    await store.close();
  }
});

it('should never take a replay again once a replica acknowledged its mark, with REDIS_REPLAY_REPLICAS=1', async () => {
  const { sentinels, store, uuid } = await releasedPlace(1);
  try {
    expect(await store.takeHeld(uuid, 'a')).toEqual(post);

    await failOver(sentinels);
    expect(await takenOnceServed(store, uuid)).toBeUndefined();
  } finally {
    await store.close();
  }
});
