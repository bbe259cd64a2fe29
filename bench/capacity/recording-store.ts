import type { Entry, QueueStore } from '../../server/store/types';

/**
 * A queue store that remembers when each visitor's release was decided (the entry's
 * `releasedAt`, read from the store's own answer), so that release-to-delivery latency can be
 * measured from the decision, not from the moment the event was published.
 */
export class RecordingStore implements QueueStore {
  /** uuid → release time (ms since the epoch), in release order. */
  readonly releasedAt = new Map<string, number>();
  /**
   * The largest ticket of each release batch (the `served` its `QueueMoved` carries) → when the
   * batch was decided, to measure the line-wide event's delivery from the same decision.
   */
  readonly batchDecidedAt = new Map<number, number>();

  constructor(private readonly inner: QueueStore) {}

  admit: QueueStore['admit'] = (...args) => this.inner.admit(...args);
  hold: QueueStore['hold'] = (...args) => this.inner.hold(...args);
  get: QueueStore['get'] = (...args) => this.inner.get(...args);
  placeInLine: QueueStore['placeInLine'] = (...args) => this.inner.placeInLine(...args);
  position: QueueStore['position'] = (...args) => this.inner.position(...args);
  recentReleases: QueueStore['recentReleases'] = () => this.inner.recentReleases();
  touch: QueueStore['touch'] = (...args) => this.inner.touch(...args);
  takeHeld: QueueStore['takeHeld'] = (...args) => this.inner.takeHeld(...args);
  moveSession: QueueStore['moveSession'] = (...args) => this.inner.moveSession(...args);
  stats: QueueStore['stats'] = (...args) => this.inner.stats(...args);
  setPaused: QueueStore['setPaused'] = (...args) => this.inner.setPaused(...args);
  close: QueueStore['close'] = () => this.inner.close();

  release: QueueStore['release'] = async (...args) => this.record(await this.inner.release(...args));
  releaseDue: QueueStore['releaseDue'] = async (...args) => this.record(await this.inner.releaseDue(...args));

  private record(entries: Entry[]): Entry[] {
    for (const entry of entries) this.releasedAt.set(entry.uuid, entry.releasedAt ?? Number.NaN);
    if (entries.length > 0) {
      const served = entries.reduce((most, entry) => Math.max(most, entry.ticket), 0);
      this.batchDecidedAt.set(served, entries[0].releasedAt ?? Number.NaN);
    }
    return entries;
  }
}
