import { MemoryStore } from '../../server/store/memory';
import type { HeldRequest, ReleasePolicy } from '../../server/store/types';
import { describeQueueStore } from './store-contract';
import { describeReportStore } from './store-report-contract';
import { describeHandoffStore } from './store-handoff-contract';
import { describeEventStore } from './store-events-contract';

describeQueueStore('memory', async () => new MemoryStore());
describeEventStore('memory', async () => new MemoryStore());
describeReportStore('memory', async () => new MemoryStore());
describeHandoffStore('memory', async () => new MemoryStore());

describe('memory queue store at scale', () => {
  const t0 = 1_700_000_000_000;
  const get: HeldRequest = { method: 'GET', uri: '/' };
  const policy: ReleasePolicy = { activeLimit: 10_000, sessionMs: 60_000, perMinute: 600_000, abandonMs: 180_000 };

  it('should end each admission at its own end, whatever the order they were set in', async () => {
    const store = new MemoryStore();
    await store.admit('long', t0, { ...policy, sessionMs: 10_000 });
    await store.admit('short', t0 + 1, { ...policy, sessionMs: 1000 });
    await store.admit('middle', t0 + 2, { ...policy, sessionMs: 5000 });
    expect((await store.stats(t0 + 1001)).active).toBe(2);
    expect(await store.admittedUntil('short', t0 + 1001)).toBeUndefined();
    expect((await store.stats(t0 + 5002)).active).toBe(1);
    expect(await store.admittedUntil('long', t0 + 5002)).toBe(t0 + 10_000);
    expect((await store.stats(t0 + 10_000)).active).toBe(0);
  });

  it('should keep an admission whose end moved later past its first end', async () => {
    const store = new MemoryStore();
    await store.admit('a', t0, { ...policy, sessionMs: 1000 });
    // Admitted again once the first admission ended: its old end is no longer its end.
    expect(await store.admit('a', t0 + 1000, { ...policy, sessionMs: 1000 })).toBe(true);
    await store.moveSession('a', 'b', 7);
    expect((await store.stats(t0 + 1500)).active).toBe(1);
    expect(await store.admittedUntil('b', t0 + 1500)).toBe(t0 + 2000);
    expect((await store.stats(t0 + 2000)).active).toBe(0);
  });

  it('should drop a place that fell silent after a sweep that found nobody to drop', async () => {
    const store = new MemoryStore();
    const first = await store.hold('first', 0, get, t0);
    expect(await store.dropAbandoned(t0 + 1000, policy.abandonMs)).toBe(0);
    const second = await store.hold('second', 0, get, t0 + 2000);
    await store.touch(first.uuid, t0 + 3000);
    expect(await store.dropAbandoned(t0 + 2000 + policy.abandonMs, policy.abandonMs)).toBe(0);
    expect(await store.dropAbandoned(t0 + 2001 + policy.abandonMs, policy.abandonMs)).toBe(1);
    expect(await store.get(second.uuid)).toBeUndefined();
    expect(await store.dropAbandoned(t0 + 3001 + policy.abandonMs, policy.abandonMs)).toBe(1);
    expect(await store.get(first.uuid)).toBeUndefined();
    // Emptied, the line drops the next silent place too.
    const third = await store.hold('third', 0, get, t0 + 4000);
    expect(await store.dropAbandoned(t0 + 4001 + policy.abandonMs, policy.abandonMs)).toBe(1);
    expect(await store.get(third.uuid)).toBeUndefined();
  });

  it('should drop a pending place once its time is over, after a sweep that found none due', async () => {
    const store = new MemoryStore();
    const first = await store.hold('first', 0, get, t0, { pendingUntil: t0 + 1000 });
    await store.dropAbandoned(t0 + 500, policy.abandonMs);
    const second = await store.hold('second', 0, get, t0 + 600, { pendingUntil: t0 + 1600 });
    await store.dropAbandoned(t0 + 999, policy.abandonMs);
    expect((await store.get(first.uuid))?.state).toBe('pending');
    await store.dropAbandoned(t0 + 1000, policy.abandonMs);
    expect(await store.get(first.uuid)).toBeUndefined();
    expect((await store.get(second.uuid))?.state).toBe('pending');
    await store.dropAbandoned(t0 + 1600, policy.abandonMs);
    expect(await store.get(second.uuid)).toBeUndefined();
  });

  it('should keep the release times of several steps newest first, and forget thousands released once their claim ends', async () => {
    const store = new MemoryStore();
    const places: string[] = [];
    for (let i = 0; i < 3000; i++) places.push((await store.hold(`s${i}`, i + 1, get, t0)).uuid);
    await store.release(30, t0 + 1000, policy);
    await store.release(30, t0 + 2000, policy);
    expect((await store.recentReleases()).times).toEqual([...Array<number>(30).fill(t0 + 2000), ...Array<number>(20).fill(t0 + 1000)]);
    await store.release(2000, t0 + 3000, policy);
    const place = await store.placeInLine(places[2500], t0 + 3000);
    expect(place?.recentReleases).toEqual(Array<number>(50).fill(t0 + 3000));
    expect(place?.position).toBe(2500 - 2060 + 1);
    // Each released place is kept for its claim (here its admission), then forgotten, the oldest first.
    await store.releaseDue(t0 + 61_000, { ...policy, activeLimit: 0 });
    expect(await store.get(places[0])).toBeUndefined();
    expect((await store.get(places[100]))?.state).toBe('released');
    const moved = await store.offerHandoff('link', { uuid: places[2059], sessionId: 's2059', name: 'x', expiresAt: t0 + 70_000 }, t0 + 61_000);
    expect(moved).toBe(true);
    const taken = await store.takeHandoff('link', 'phone', 'new-uuid', t0 + 61_000);
    expect(taken.moved).toBe(true);
    await store.releaseDue(t0 + 63_001, { ...policy, activeLimit: 0 });
    expect(await store.get(places[2000])).toBeUndefined();
    expect(await store.get('new-uuid')).toBeUndefined();
    expect((await store.get(places[2060]))?.state).toBe('waiting');
  });
});
