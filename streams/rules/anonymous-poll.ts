import type { Observable, SchedulerLike } from 'rxjs';
import type { QueueInfo } from '../types';
import { pollQueueInfo } from './polling';
import type { PollResult } from './queue-info';

/**
 * The anonymous visitors' queue_info poll (spec section 4, "On successful subscription … for
 * anonymous visitors, begin the 5 second polling"). On each `subscribed$` emission, polls at
 * once and then every `period` ms (`TIMINGS.anonymousPoll`); a later subscription restarts the
 * schedule rather than stacking a second one. Emits one PollResult per call, in answer order;
 * never errors. The caller runs it for anonymous visitors only.
 */
export function anonymousPoll(
  subscribed$: Observable<unknown>,
  queueInfo: () => Observable<QueueInfo>,
  period: number,
  scheduler: SchedulerLike,
): Observable<PollResult> {
  return pollQueueInfo(subscribed$, queueInfo, period, scheduler);
}
