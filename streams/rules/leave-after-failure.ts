import { concat, ignoreElements, of, timer, type Observable, type SchedulerLike } from 'rxjs';
import type { Failed, Leaving } from '../status.js';
import type { FailureMessage } from '../types.js';
import { leave } from './leave.js';

/**
 * The end after a failure (spec section 8: "reported …; the page leaves after 2 s").
 * Emits `failed` with the message at once, `leaving` step `back` `leaveDelay` ms later
 * (`TIMINGS.leaveDelay`), `leaving` step `root` `rootFallback` ms after that, then completes.
 */
export function leaveAfterFailure(message: FailureMessage, leaveDelay: number, rootFallback: number, scheduler: SchedulerLike): Observable<Failed | Leaving> {
  return concat(of<Failed>({ kind: 'failed', message }), timer(leaveDelay, scheduler).pipe(ignoreElements()), leave(rootFallback, scheduler));
}
