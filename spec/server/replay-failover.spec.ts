import Redis from 'ioredis';
import { RedisStore } from '../../server/store/redis/redis-store';
import type { HeldRequest, ReleasePolicy } from '../../server/store/types';
import { eventually } from '../support/eventually';
import { startSentinelSet, type SentinelSet } from '../support/redis-topologies';

/**
 * The one path to a double replay that docs/durability.md admits: replication is asynchronous, so
 * a replay marked on the primary and not yet on its replica is taken again once the replica is
 * promoted. This proves the window is real (and how to open it on purpose), so that a fix closing
 * it (e.g. `WAIT` after the mark) turns this test's expectation around.
 */
jest.setTimeout(60_000);

const policy: ReleasePolicy = { activeLimit: 100, sessionMs: 300_000, perMinute: 0, abandonMs: 300_000 };
const post: HeldRequest = { method: 'POST', uri: '/checkout', body: { contentType: 'application/x-www-form-urlencoded', raw: 'item=1' } };

let set: SentinelSet;
beforeAll(async () => {
  set = await startSentinelSet();
});
afterAll(async () => {
  await set?.close();
});

it('should take a replay again on a promoted replica that never received its mark', async () => {
  const store = new RedisStore({ kind: 'sentinel', sentinels: set.sentinels, name: set.name, tls: false }, { localLine: false });
  try {
    const entry = await store.hold('a', 0, post, Date.now());
    await store.release(1, Date.now(), policy);
    await set.inSync();

    // The replica frozen, and its link's buffers filled, so that the mark stays on the primary.
    set.replica.pause();
    const filler = new Redis({ port: set.primary.port, host: '127.0.0.1' });
    await filler.set('filler', 'x'.repeat(24 * 1024 * 1024));
    filler.disconnect();
    expect(await store.takeHeld(entry.uuid, 'a')).toEqual(post);

    await set.primary.kill();
    set.replica.resume();
    await eventually(
      'the replica promoted',
      () => set.primaryPort(),
      (port) => port === set.replica.port,
      30_000,
      200,
    );
    const again = await eventually(
      'the store on the promoted replica',
      () => store.takeHeld(entry.uuid, 'a'),
      () => true,
      20_000,
      200,
    );
    expect(again).toEqual(post);
  } finally {
    await store.close();
  }
});
