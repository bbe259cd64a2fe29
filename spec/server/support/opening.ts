import type { DropEvent } from '../../../server/domain/events/event';
import type { RedisStore } from '../../../server/store/redis/redis-store';
import type { Entry, HeldRequest } from '../../../server/store/types';

/** An event's opening on Redis, shared by the tests on one Redis and on Sentinel: its times, the event, the pre-queue's filling. */

export const T0 = Date.UTC(2030, 4, 1, 9, 0);
export const PREQUEUE = T0 + 60_000;
export const OPENING = T0 + 3_600_000;

const get: HeldRequest = { method: 'GET', uri: '/tickets?show=42' };

export const event: DropEvent = {
  id: 'spring-drop',
  name: 'Spring drop',
  prequeueStartTime: new Date(PREQUEUE).toISOString(),
  eventStartTime: new Date(OPENING).toISOString(),
  eventEndTime: new Date(OPENING + 3_600_000).toISOString(),
  shuffleAtEventStart: true,
  queueingMethod: 'fifo',
  activeLimit: null,
  releasePerMinute: null,
  botChallenge: null,
};

/** `count` visitors into the pre-queue, `batch` at a time, through the store's own `hold`. */
export async function fill(store: RedisStore, count: number, batch = 2000): Promise<string[]> {
  const uuids: string[] = [];
  for (let start = 0; start < count; start += batch) {
    const held = await Promise.all(Array.from({ length: Math.min(batch, count - start) }, (_, i) => store.hold(`v${start + i}`, 0, get, PREQUEUE)));
    uuids.push(...held.map((entry: Entry) => entry.uuid));
  }
  return uuids;
}
