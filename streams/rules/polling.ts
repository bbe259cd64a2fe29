import { exhaustMap, switchMap, timer, type Observable, type SchedulerLike } from 'rxjs';
import type { QueueInfo } from '../types';
import { callQueueInfo, type PollResult } from './queue-info';

/**
 * Polls queue_info on each `start$` emission: at once, then every `period` ms.
 * Emits one PollResult per call, in the order the answers arrive; never errors.
 *
 * - A new `start$` emission restarts the schedule (switchMap): the previous schedule and any
 *   call still in flight are cancelled, and a fresh call goes out at once. A reconnect is
 *   exactly when an in-flight call is likely to be hung on the dead network, so restarting
 *   beats waiting for it.
 * - Within one schedule, a tick that comes while a call is still in flight is dropped
 *   (exhaustMap): calls never overlap or pile up on a slow server, and the answer in flight
 *   is as fresh as a doubled call would be. The next call goes out on the next tick.
 */
export function pollQueueInfo(
  start$: Observable<unknown>,
  queueInfo: () => Observable<QueueInfo>,
  period: number,
  scheduler: SchedulerLike,
): Observable<PollResult> {
  return start$.pipe(
    switchMap(() => timer(0, period, scheduler).pipe(exhaustMap(() => callQueueInfo(queueInfo, scheduler)))),
  );
}
