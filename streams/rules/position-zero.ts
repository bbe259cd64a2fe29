import { distinctUntilChanged, EMPTY, filter, map, switchMap, timer, type Observable, type SchedulerLike } from 'rxjs';
import type { FailureMessage } from '../types.js';
import type { PollResult } from './queue-info.js';

export const POSITION_ZERO_MESSAGE: FailureMessage = 'Websocket KO - position 0 depuis 10sec';

/**
 * The position-0 watchdog (spec section 4 and 8). Position 0 means the server has released the
 * visitor, so the release event should follow; if it does not within `timeout` ms
 * (`TIMINGS.positionZeroTimeout`), the realtime link is broken.
 *
 * Emits 'Websocket KO - position 0 depuis 10sec' `timeout` ms after the first 0 of a run of
 * zeros, unless a non-zero position is answered first. Later zeros of the same run do not restart
 * the timer, and a failed call is not a position: it leaves the timer running (a server that
 * stops answering after saying 0 has not taken the 0 back). Cancelling on release is the
 * caller's: the status stream ends at the release.
 */
export function positionZero(results$: Observable<PollResult>, timeout: number, scheduler: SchedulerLike): Observable<FailureMessage> {
  return results$.pipe(
    filter((result) => result.ok),
    map((result) => result.ok && result.info.position === 0),
    distinctUntilChanged(),
    switchMap((atZero) => (atZero ? timer(timeout, scheduler).pipe(map(() => POSITION_ZERO_MESSAGE)) : EMPTY)),
  );
}
