import type { QueueStore, RecentReleases } from '../store/types';

/**
 * One instance's copy of the line-wide release times, shared by every queue_info it answers.
 * The times change only when `served` grows (see `RecentReleases`), so the copy is read again
 * only once a visitor's position shows a `served` beyond it: about once per release step, not
 * once per poll. Concurrent reads share one call to the store.
 */
export class RecentReleasesCache {
  private latest?: RecentReleases;
  private reading?: Promise<RecentReleases>;

  constructor(private readonly store: Pick<QueueStore, 'recentReleases'>) {}

  /** The release times, at least as current as a `Position` that saw `served`. */
  async read(served: number): Promise<readonly number[]> {
    if (this.latest && this.latest.served >= served) return this.latest.times;
    let fresh = await (this.reading ?? this.refresh());
    // That read may have left before the line moved; one started after it settled cannot have.
    if (fresh.served < served) fresh = await (this.reading ?? this.refresh());
    return fresh.times;
  }

  private refresh(): Promise<RecentReleases> {
    const reading = this.store
      .recentReleases()
      .then((fresh) => {
        if (!this.latest || fresh.served >= this.latest.served) this.latest = fresh;
        return fresh;
      })
      .finally(() => {
        if (this.reading === reading) this.reading = undefined;
      });
    this.reading = reading;
    return reading;
  }
}
