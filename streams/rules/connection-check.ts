import { exhaustMap, filter, map, merge, timer, withLatestFrom, type Observable, type SchedulerLike } from 'rxjs';
import type { ConnectionState, FailureMessage } from '../types.js';

export const UNAVAILABLE_MESSAGE: FailureMessage = 'Websoket KO - unavailable';

/**
 * The connection check (spec section 4 and 8): on an `unavailable` state or an `error` event,
 * waits `delay` ms (`TIMINGS.connectionCheck`), then looks at the state the connection is in
 * at that moment. `state$` must start with the current state (the status stream starts it with
 * 'initialized', pusher-js's first state).
 *
 * Emits 'Websoket KO - unavailable' (spelled so) when that state is not `connected`; emits
 * nothing when it is. Events during a pending check do not start another one (exhaustMap on
 * the timer): one check per window; the next event after the check opens a new window.
 */
export function connectionCheck(
  state$: Observable<ConnectionState>,
  error$: Observable<unknown>,
  delay: number,
  scheduler: SchedulerLike,
): Observable<FailureMessage> {
  return merge(state$.pipe(filter((state) => state === 'unavailable')), error$).pipe(
    exhaustMap(() => timer(delay, scheduler)),
    withLatestFrom(state$),
    filter(([, state]) => state !== 'connected'),
    map(() => UNAVAILABLE_MESSAGE),
  );
}
