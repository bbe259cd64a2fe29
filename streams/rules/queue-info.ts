import { catchError, defaultIfEmpty, defer, map, of, take, type Observable, type SchedulerLike } from 'rxjs';
import { queueInfoOf, type QueueInfo } from '../contract/queue-info.js';
import { isPlaceLost, isPlaceMovedAway, isPlacePending } from '../place-lost.js';

/**
 * The outcome of one queue_info call: an answer stamped with its scheduler time, or none: a
 * failure, `lost` when the server said it does not know the place, `pending` when it said the
 * place waits for its bot check (see place-lost.ts).
 */
export type PollResult =
  | { readonly ok: true; readonly info: QueueInfo; readonly at: number }
  | { readonly ok: false; readonly lost?: true; readonly pending?: true; readonly movedAway?: true };

const FAILED: PollResult = { ok: false };
const LOST: PollResult = { ok: false, lost: true };
const PENDING: PollResult = { ok: false, pending: true };
const MOVED_AWAY: PollResult = { ok: false, movedAway: true };

/**
 * One queue_info call that never errors (rule: a failed call never ends the status stream).
 * Emits exactly one PollResult, then completes:
 * - `{ok: true, info, at}` for the first answer, `at` being `scheduler.now()` when it arrived;
 * - `{ok: false, lost: true}` when the call errors with a lost-place marker (`isPlaceLost`);
 * - `{ok: false, pending: true}` when it errors with a pending-place marker (`isPlacePending`);
 * - `{ok: false, movedAway: true}` when it errors with a moved-place marker (`isPlaceMovedAway`);
 * - `{ok: false}` when the call errors otherwise (or throws), completes without an answer, or
 *   answers something that is not a non-negative finite position and estimate — showing NaN or
 *   starting the position-0 watchdog on garbage would be worse than counting a failure.
 * The answer is read as the contract's `queueInfoOf` reads it: `ticket` and `served` are kept only
 * when both are non-negative whole numbers (the extension is lost, the answer is not).
 */
export function callQueueInfo(queueInfo: () => Observable<QueueInfo>, scheduler: SchedulerLike): Observable<PollResult> {
  return defer(queueInfo).pipe(
    take(1),
    map((answer): PollResult => {
      const info = queueInfoOf(answer);
      return info ? { ok: true, info, at: scheduler.now() } : FAILED;
    }),
    defaultIfEmpty(FAILED),
    catchError((error: unknown) => of(isPlaceLost(error) ? LOST : isPlacePending(error) ? PENDING : isPlaceMovedAway(error) ? MOVED_AWAY : FAILED)),
  );
}
