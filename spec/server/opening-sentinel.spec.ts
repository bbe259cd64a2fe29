import Redis from 'ioredis';
import { drawKey, drawOrder } from '../../server/domain/events/draw';
import { RedisStore } from '../../server/store/redis/redis-store';
import { eventually } from '../support/eventually';
import { startSentinelSet } from '../support/redis-topologies';
import { event, fill } from './support/opening';

/** An event's opening on Redis Sentinel, its primary killed while the draw is placed in steps. */

describe('an opening on Redis Sentinel, its primary killed half-way', () => {
  it('should go on on the promoted replica, losing and doubling no place', async () => {
    const sentinel = await startSentinelSet('wr-opening');
    const target = { kind: 'sentinel' as const, sentinels: sentinel.sentinels, name: sentinel.name, tls: false };
    const store = new RedisStore(target, { prefix: 'sentinel:', commandTimeoutMs: 5000 });
    try {
      const seed = '3c'.repeat(32);
      await store.startPrequeue(event.id, seed);
      const entrants = await fill(store, 4000, 500);
      await store.openEvent(event.id);
      for (;;) {
        const { uuids, mark } = await store.unkeyedEntrants(event.id, 1000);
        await store.addDrawKeys(
          event.id,
          uuids.map((uuid) => ({ uuid, key: drawKey(seed, uuid) })),
          mark,
        );
        if (uuids.length < 1000) break;
      }
      for (let step = 0; step < 3; step++) await store.placeDrawn(event.id, 500);
      await sentinel.inSync();
      // Steps the replica may or may not have when the primary dies.
      await store.placeDrawn(event.id, 500);

      await sentinel.primary.kill();
      await eventually(
        'the Sentinels to promote the replica',
        () => sentinel.primaryPort(),
        (port) => port === sentinel.replica.port,
        30_000,
      );
      await eventually(
        'the draw done on the promoted replica',
        async () => (await store.placeDrawn(event.id, 500))?.done,
        (done) => done === true,
        30_000,
      );

      const order = drawOrder(seed, entrants).map((drawn) => drawn.uuid);
      expect(await store.entrantsOf(event.id)).toEqual(order);
      const replica = new Redis(sentinel.replica.port, '127.0.0.1');
      try {
        const line = await replica.zrangebyscore('sentinel:waiting', '-inf', '+inf', 'WITHSCORES');
        expect(line.filter((_, i) => i % 2 === 0)).toEqual(order);
        expect(new Set(line.filter((_, i) => i % 2 === 1)).size).toBe(entrants.length);
      } finally {
        replica.disconnect();
      }
    } finally {
      await store.close();
      await sentinel.close();
    }
  }, 120_000);
});
