import { filter, type Observable, type SchedulerLike } from 'rxjs';
import type { ConnectionState, QueueInfo } from '../types';
import { pollQueueInfo } from './polling';
import type { PollResult } from './queue-info';

/**
 * The queue_info poll every visitor runs (spec section 4, "On 'connected' … start polling every
 * 60 seconds"). On each `connected` in `state$`, polls at once and then every `period` ms
 * (`TIMINGS.poll`); a reconnect restarts the schedule and never stacks a second one.
 * Emits one PollResult per call, in answer order; never errors.
 *
 * The poll keeps going while the connection is down: queue_info is plain HTTP, so it keeps the
 * position fresh during an outage; only the next `connected` restarts it.
 */
export function poll(
  state$: Observable<ConnectionState>,
  queueInfo: () => Observable<QueueInfo>,
  period: number,
  scheduler: SchedulerLike,
): Observable<PollResult> {
  return pollQueueInfo(state$.pipe(filter((state) => state === 'connected')), queueInfo, period, scheduler);
}
