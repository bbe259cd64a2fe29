import { switchMap, timer, type Observable, type SchedulerLike } from 'rxjs';
import type { QueueOpened } from '../contract/queue-info.js';

/**
 * A visitor's own share of any spread, in [0, 1): the FNV-1a hash of the uuid over 2^32. The same
 * for every opening, so a page that hears it twice asks at the same moment; uuids issued at
 * random spread evenly.
 */
export function shareOf(uuid: string): number {
  let hash = 2166136261;
  for (let i = 0; i < uuid.length; i++) hash = Math.imul(hash ^ uuid.charCodeAt(i), 16777619) >>> 0;
  return hash / 2 ** 32;
}

/**
 * The opening of a scheduled event's pre-queue (an extension): when `QueueOpened` says it has
 * been drawn, this visitor asks queue_info for the position once, at a moment of their own within
 * its `spread` (ms), so that a pre-queue of 100,000 asks over that time, not at once.
 *
 * Emits one value `spread × shareOf(uuid)` ms after each `QueueOpened`, on `scheduler` (a later one
 * restarts the wait); a `spread` that is not a finite, non-negative number counts as 0: at once.
 */
export function opening(opened$: Observable<QueueOpened>, uuid: string, scheduler: SchedulerLike): Observable<0> {
  const share = shareOf(uuid);
  const spreadOf = (opened: QueueOpened | null | undefined): number => (Number.isFinite(opened?.spread) && opened!.spread > 0 ? opened!.spread : 0);
  return opened$.pipe(switchMap((opened) => timer(Math.floor(spreadOf(opened) * share), scheduler)));
}
