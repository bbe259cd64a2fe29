import type { Clock } from '../clock';
import { estimateMinutes, estimateRate, type SessionLimits } from '../estimate';
import type { Logger } from '../logger';
import type { RecentReleasesCache } from '../recent-releases-cache';
import type { Entry, QueueStore } from '../../store/types';
import type { ReportCounter } from './record';

export interface RecorderParts {
  readonly store: QueueStore;
  /** The instance's copy of the line's release times, shared with queue_info: an arrival reads none of its own. */
  readonly recentReleases: Pick<RecentReleasesCache, 'read'>;
  readonly clock: Clock;
  readonly log: Logger;
  /** How long the room's report is kept after its last write (REPORT_RETENTION_HOURS), in ms. */
  readonly retentionMs: number;
  /** The release rate in force, which the estimate blends in while few releases were seen. */
  readonly perMinute: () => number;
  /** The active limit and session length in force, with which a room paced by its sessions is estimated (`estimate.ts`). */
  readonly sessions?: () => SessionLimits;
}

/**
 * Writes a room's report as its line changes, in the store, so that every instance adds to one
 * record (`ReportStore`). A write that fails is logged and lost, never thrown: the report must not
 * cost a visitor a place, an admission or a replay. Each method returns once written, for tests;
 * the visitors' paths do not wait for it.
 */
export class ReportRecorder {
  /** Whether this instance's last sample saw anyone waiting: one more sample after the line empties. */
  private sampledSome = false;

  constructor(private readonly parts: RecorderParts) {}

  get retentionMs(): number {
    return this.parts.retentionMs;
  }

  /**
   * A place entered the line at `now` (held, or its bot check solved) at `position`, the line's
   * `served` read with it: its row, with its number in the line and the estimate its page was given.
   */
  arrived(entry: Pick<Entry, 'uuid' | 'heldAt' | 'state'>, position: number, served: number, now: number): Promise<void> {
    if (entry.state !== 'waiting' || position < 1) return Promise.resolve();
    return this.guard('arrival', async () => {
      const { store, retentionMs } = this.parts;
      const times = await this.parts.recentReleases.read(served);
      const estimate = estimateMinutes(position, times, now, this.parts.perMinute(), this.parts.sessions?.());
      await store.reportArrival({ uuid: entry.uuid, heldAt: entry.heldAt, arrivedAt: now, lineNumber: served + position, estimate }, retentionMs);
    });
  }

  /** Places released (by the loop, an operator, or an event letting everyone through). */
  released(entries: readonly Pick<Entry, 'uuid' | 'heldAt' | 'releasedAt'>[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    const at = entries[0].releasedAt ?? this.parts.clock.now();
    return this.guard('releases', () => this.parts.store.reportReleases(entries, at, this.parts.retentionMs));
  }

  /** A held request restored by its replay. */
  replayed(entry: Pick<Entry, 'uuid' | 'heldAt'>): Promise<void> {
    return this.guard('replay', () => this.parts.store.reportReplay(entry, this.parts.clock.now(), this.parts.retentionMs));
  }

  /** A bot check's solution verified (`solved`) or refused. */
  botCheck(solved: boolean): Promise<void> {
    return this.count(solved ? 'botSolved' : 'botFailed');
  }

  /** An admission the site revoked. */
  revoked(): Promise<void> {
    return this.count('revoked');
  }

  /**
   * A sample of the line, on every tick of the release loop: its length, and (the minute's first)
   * `served` and the estimate's release rate. Nothing while nobody waits, but the first sample
   * after the line emptied, so that an idle room writes nothing and its report expires.
   */
  sample(): Promise<void> {
    return this.guard('sample', async () => {
      const { store, clock, retentionMs } = this.parts;
      const now = clock.now();
      const stats = await store.stats(now);
      const some = stats.waiting > 0;
      if (!some && !this.sampledSome) return;
      this.sampledSome = some;
      const recent = await store.recentReleases();
      const rate = estimateRate(recent.times, now, this.parts.perMinute(), this.parts.sessions?.());
      await store.reportSample(now, { served: recent.served, rate, waiting: stats.waiting }, retentionMs);
    });
  }

  private count(counter: ReportCounter): Promise<void> {
    return this.guard(counter, () => this.parts.store.reportCount(counter, this.parts.clock.now(), this.parts.retentionMs));
  }

  private async guard(what: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.parts.log.warn({ err: error }, `report: ${what} not recorded`);
    }
  }
}
