import { MemoryStore } from '../../server/store/memory';
import { RecentReleasesCache } from '../../server/domain/recent-releases-cache';
import type { RecentReleases } from '../../server/store/types';

const policy = { activeLimit: 100, sessionMs: 300_000, perMinute: 60, abandonMs: 180_000 };
const t0 = 1_700_000_000_000;
const get = { method: 'GET', uri: '/checkout' };

/** The memory store, counting the reads of the release times and able to hold them back. */
class CountingStore extends MemoryStore {
  reads = 0;
  private gate?: Promise<void>;
  private open?: () => void;

  /** Reads from now on answer only once `release()` of the returned function is called. */
  holdReads(): () => void {
    this.gate = new Promise((resolve) => (this.open = resolve));
    return () => {
      this.gate = undefined;
      this.open?.();
    };
  }

  override async recentReleases(): Promise<RecentReleases> {
    this.reads++;
    // Read at the call, answered later: as a reply that left Redis before a release.
    const fresh = await super.recentReleases();
    await this.gate;
    return fresh;
  }
}

async function lineOf(count: number): Promise<{ store: CountingStore; uuids: string[] }> {
  const store = new CountingStore();
  const uuids: string[] = [];
  for (let i = 0; i < count; i++) uuids.push((await store.hold(`s${i}`, 0, get, t0)).uuid);
  return { store, uuids };
}

describe('RecentReleasesCache', () => {
  it('should read the release times once for every visitor while the line does not move', async () => {
    const { store, uuids } = await lineOf(5);
    await store.release(1, t0 + 1000, policy);
    const cache = new RecentReleasesCache(store);
    const places = await Promise.all(uuids.slice(1).map((uuid) => store.position(uuid, t0 + 2000)));
    const times = await Promise.all(places.map((place) => cache.read(place!.served)));
    expect(times).toEqual(places.map(() => [t0 + 1000]));
    expect(await cache.read(places[0]!.served)).toEqual([t0 + 1000]);
    expect(store.reads).toBe(1);
  });

  it('should read them again once a visitor has seen the line move', async () => {
    const { store, uuids } = await lineOf(5);
    const cache = new RecentReleasesCache(store);
    expect(await cache.read((await store.position(uuids[4], t0))!.served)).toEqual([]);
    await store.release(2, t0 + 1000, policy);
    const place = await store.position(uuids[4], t0 + 1500);
    expect(await cache.read(place!.served)).toEqual([t0 + 1000, t0 + 1000]);
    expect(store.reads).toBe(2);
  });

  it('should not answer from a read that left before the move the visitor saw', async () => {
    const { store, uuids } = await lineOf(5);
    const cache = new RecentReleasesCache(store);
    const openReads = store.holdReads();
    const early = cache.read(0);
    await store.release(1, t0 + 1000, policy);
    const place = await store.position(uuids[4], t0 + 1500);
    const late = cache.read(place!.served);
    openReads();
    expect(await early).toEqual([]);
    expect(await late).toEqual([t0 + 1000]);
    expect(store.reads).toBe(2);
  });

  it('should pass on a failed read and read again on the next call', async () => {
    const { store } = await lineOf(1);
    const cache = new RecentReleasesCache(store);
    const failing = jest.spyOn(store, 'recentReleases').mockRejectedValueOnce(new Error('store unavailable'));
    await expect(cache.read(0)).rejects.toThrow('store unavailable');
    failing.mockRestore();
    expect(await cache.read(0)).toEqual([]);
  });
});
