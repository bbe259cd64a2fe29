import { concat, map, of, timer, type Observable, type SchedulerLike } from 'rxjs';
import type { Leaving } from '../status.js';

/**
 * Leaving the page (spec sections 2 and 5): back in history, then the site root.
 * Emits `leaving` step `back` at once, `leaving` step `root` `rootFallback` ms later
 * (`TIMINGS.rootFallback`), then completes.
 */
export function leave(rootFallback: number, scheduler: SchedulerLike): Observable<Leaving> {
  return concat(of<Leaving>({ kind: 'leaving', step: 'back' }), timer(rootFallback, scheduler).pipe(map((): Leaving => ({ kind: 'leaving', step: 'root' }))));
}
