import { exhaustMap, switchMap, timer, type Observable, type SchedulerLike } from 'rxjs';
import type { QueueInfo } from '../contract/queue-info.js';
import { callQueueInfo, type PollResult } from './queue-info.js';

/**
 * The queue_info poll (spec section 4): every visitor polls every 60 s from each `connected`
 * (`TIMINGS.poll`), and anonymous visitors also every 5 s from each successful subscription
 * (`TIMINGS.anonymousPoll`); the status stream runs one poll for each, started by those events.
 *
 * On each `start$` emission, polls at once, then every `period` ms. Emits one PollResult per
 * call, in the order the answers arrive; never errors.
 * - A new `start$` emission restarts the schedule (switchMap): the previous schedule and any
 *   call still in flight are cancelled, and a fresh call goes out at once. A reconnect is
 *   exactly when an in-flight call is likely to be hung on the dead network, so restarting
 *   beats waiting for it; a later subscription never stacks a second schedule either.
 * - Within one schedule, a tick that comes while a call is still in flight is dropped
 *   (exhaustMap): calls never overlap or pile up on a slow server, and the answer in flight
 *   is as fresh as a doubled call would be. The next call goes out on the next tick.
 * - Nothing but the next `start$` emission stops a schedule: queue_info is plain HTTP, so it
 *   keeps the position fresh while the realtime connection is down.
 */
export function poll(start$: Observable<unknown>, queueInfo: () => Observable<QueueInfo>, period: number, scheduler: SchedulerLike): Observable<PollResult> {
  return start$.pipe(switchMap(() => timer(0, period, scheduler).pipe(exhaustMap(() => callQueueInfo(queueInfo, scheduler)))));
}
