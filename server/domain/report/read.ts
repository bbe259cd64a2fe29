import type { QueueStore } from '../../store/types';
import { reportFigures, type ReportFigures, type UnreleasedState } from './figures';

/** Places looked up at once for what became of them (`store.get`). */
const LOOKUP_BATCH = 500;

/**
 * The report's figures over the places that arrived from `from` to `to` (ms), as the store keeps
 * them at `now`: the line's, whichever instance reads it. The places without a release are looked
 * up in the line, a batch at a time, to tell those still waiting from those gone.
 */
export async function readReport(store: Pick<QueueStore, 'reportRead' | 'get'>, from: number, to: number, now: number): Promise<ReportFigures> {
  const { rows, minutes } = await store.reportRead(from, to, now);
  const open = rows.filter((row) => row.releasedAt === undefined && row.arrivedAt >= from && row.arrivedAt <= to);
  const unreleased = new Map<string, UnreleasedState>();
  for (let start = 0; start < open.length; start += LOOKUP_BATCH) {
    const batch = open.slice(start, start + LOOKUP_BATCH);
    const entries = await Promise.all(batch.map((row) => store.get(row.uuid)));
    batch.forEach((row, i) => {
      const entry = entries[i];
      const state: UnreleasedState =
        entry?.state === 'waiting'
          ? { state: 'waiting' }
          : entry?.state === 'released' && entry.releasedAt !== undefined
            ? { state: 'released', releasedAt: entry.releasedAt }
            : { state: 'gone' };
      unreleased.set(row.uuid, state);
    });
  }
  return reportFigures(rows, minutes, unreleased, from, to);
}
