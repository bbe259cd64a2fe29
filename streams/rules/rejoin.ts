import { concat, map, of, timer, type Observable, type SchedulerLike } from 'rxjs';
import type { Lost, Rejoining } from '../status.js';

/**
 * The end after a lost place (an extension beyond the spec; see rules/lost-place).
 * Emits `lost` at once, so that the page can tell the visitor; then, when there is a held GET to
 * load again, `rejoining` with its target `rejoinDelay` ms later (`TIMINGS.rejoinDelay`: time to
 * read why), then completes. With nothing to load again it completes at once: the visitor decides.
 */
export function rejoin(lost: Lost, rejoinDelay: number, scheduler: SchedulerLike): Observable<Lost | Rejoining> {
  const { rejoin: target } = lost;
  return concat(of(lost), target == null ? [] : timer(rejoinDelay, scheduler).pipe(map((): Rejoining => ({ kind: 'rejoining', target }))));
}
