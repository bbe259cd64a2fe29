import type { CodeGuessLimits, HeldRequest, QueueStore, ReleasePolicy } from '../../server/store/types';

/**
 * Priority codes, as every queue store must keep them (run from `describeQueueStore`, so on the
 * memory store, Redis and a Cluster alike, and from `describePartedLine` on a line split in parts).
 */
export function describeCodes(storeOf: () => QueueStore): void {
  const get: HeldRequest = { method: 'GET', uri: '/checkout?item=42' };
  const policy: ReleasePolicy = { activeLimit: 100, sessionMs: 300_000, perMinute: 6, abandonMs: 180_000 };
  const limits: CodeGuessLimits = { address: 'a1', perPlace: 3, perAddress: 5, windowMs: 60_000 };
  const t0 = 1_700_000_000_000;
  const later = t0 + 3_600_000;

  /** Places held one after the other, each in a later millisecond: a line split in parts orders tickets of one millisecond by part. */
  async function line(store: QueueStore, count: number): Promise<string[]> {
    const uuids: string[] = [];
    for (let i = 0; i < count; i++) {
      uuids.push((await store.hold(`s${i}`, 0, get, t0)).uuid);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    return uuids;
  }
  const positions = async (store: QueueStore, uuids: string[]) => Promise.all(uuids.map(async (uuid) => (await store.position(uuid, t0))?.position));

  describe('priority codes', () => {
    it('should move a place ahead of every place without a code and behind earlier code holders, once per code', async () => {
      const store = storeOf();
      const uuids = await line(store, 5);
      await store.addCodes(['h1', 'h2'], t0, later);
      expect(await store.useCode('s3', 'h1', t0, limits)).toEqual({ outcome: 'moved', position: 1 });
      // Those it passed moved back one place each; the one behind it did not move.
      expect(await positions(store, uuids)).toEqual([2, 3, 4, 1, 5]);
      expect(await store.useCode('s4', 'h2', t0, limits)).toEqual({ outcome: 'moved', position: 2 });
      expect(await positions(store, uuids)).toEqual([3, 4, 5, 1, 2]);
      // Used: never again, and a code holder is not moved twice.
      expect(await store.useCode('s2', 'h1', t0, limits)).toEqual({ outcome: 'wrong' });
      await store.addCodes(['h3'], t0, later);
      expect(await store.useCode('s3', 'h3', t0, limits)).toEqual({ outcome: 'ahead', position: 1 });
      expect(await store.codeCounts()).toEqual({ issued: 3, used: 2 });
      // Released in that order, each once; a newcomer waits behind all.
      const newcomer = (await store.hold('s5', 0, get, t0)).uuid;
      const released = await store.release(10, t0 + 1, policy);
      expect(released.released.map((entry) => entry.uuid)).toEqual([uuids[3], uuids[4], uuids[0], uuids[1], uuids[2], newcomer]);
      expect(released.served).toBe(6);
      expect((await store.release(10, t0 + 2, policy)).released).toEqual([]);
    });

    it('should keep the served count true: every place behind a code holder moves up as the head leaves', async () => {
      const store = storeOf();
      const uuids = await line(store, 4);
      await store.addCodes(['h'], t0, later);
      await store.useCode('s2', 'h', t0, limits);
      await store.release(1, t0 + 1, policy);
      const place = await store.position(uuids[3], t0);
      expect(place).toMatchObject({ position: 3, served: 1 });
      expect(await store.placeInLine(uuids[2], t0)).toMatchObject({ position: 0, entry: { state: 'released' } });
    });

    it('should refuse an expired code, and a code for a place that does not wait', async () => {
      const store = storeOf();
      await line(store, 2);
      await store.addCodes(['old', 'fresh'], t0, t0 + 1000);
      expect(await store.useCode('s1', 'old', t0 + 1000, limits)).toEqual({ outcome: 'wrong' });
      expect(await store.useCode('nobody', 'fresh', t0, limits)).toEqual({ outcome: 'no-place' });
      await store.release(1, t0, policy);
      expect(await store.useCode('s0', 'fresh', t0, limits)).toEqual({ outcome: 'not-waiting' });
      await store.hold('p', 0, get, t0, { pendingUntil: t0 + 60_000 });
      expect(await store.useCode('p', 'fresh', t0, limits)).toEqual({ outcome: 'not-waiting' });
      // Still there for a place that waits.
      expect(await store.useCode('s1', 'fresh', t0, limits)).toEqual({ outcome: 'moved', position: 1 });
      expect(await store.codeCounts()).toEqual({ issued: 2, used: 1 });
    });

    it('should bound the wrong codes per place, even with a right one after', async () => {
      const store = storeOf();
      await line(store, 2);
      await store.addCodes(['right'], t0, later);
      const own = { ...limits, address: '' };
      for (let i = 0; i < own.perPlace; i++) expect(await store.useCode('s1', `wrong${i}`, t0, own)).toEqual({ outcome: 'wrong' });
      expect(await store.useCode('s1', 'right', t0, own)).toEqual({ outcome: 'limited' });
      // Not used: another place may still take it.
      expect(await store.useCode('s0', 'right', t0, own)).toEqual({ outcome: 'moved', position: 1 });
    });

    it('should bound the wrong codes per address across places, for its window', async () => {
      const store = storeOf();
      await line(store, 3);
      await store.addCodes(['right'], t0, later);
      const sessions = ['s0', 's0', 's0', 's1', 's1'];
      for (const [i, session] of sessions.entries()) expect(await store.useCode(session, `wrong${i}`, t0 + i, limits)).toEqual({ outcome: 'wrong' });
      expect(await store.useCode('s2', 'right', t0 + 10, limits)).toEqual({ outcome: 'limited' });
      // Another address is not bounded by this one's.
      expect(await store.useCode('s2', 'right', t0 + 10, { ...limits, address: 'a2' })).toEqual({ outcome: 'moved', position: 1 });
    });

    it('should release code holders first when releases draw at random', async () => {
      const store = storeOf();
      const uuids = await line(store, 6);
      await store.addCodes(['h1', 'h2'], t0, later);
      await store.useCode('s5', 'h1', t0, limits);
      await store.useCode('s4', 'h2', t0, limits);
      const released = await store.release(2, t0 + 1, { ...policy, random: true });
      expect(released.released.map((entry) => entry.uuid)).toEqual([uuids[5], uuids[4]]);
    });
  });
}
