import { catchError, defaultIfEmpty, defer, map, of, take, type Observable, type SchedulerLike } from 'rxjs';
import { isPlaceLost } from '../place-lost';
import type { QueueInfo } from '../types';

/**
 * The outcome of one queue_info call: an answer stamped with its scheduler time, or a failure,
 * `lost` when the server said it does not know the place (see place-lost.ts).
 */
export type PollResult =
  | { readonly ok: true; readonly info: QueueInfo; readonly at: number }
  | { readonly ok: false; readonly lost?: true };

const FAILED: PollResult = { ok: false };
const LOST: PollResult = { ok: false, lost: true };

/** An answer the page can show: a position and an estimate that are finite, non-negative numbers. */
export function isShowable(info: unknown): info is QueueInfo {
  if (typeof info !== 'object' || info === null) return false;
  const { position, estimated } = info as Record<string, unknown>;
  return (
    typeof position === 'number' && Number.isFinite(position) && position >= 0 &&
    typeof estimated === 'number' && Number.isFinite(estimated) && estimated >= 0
  );
}

/** A ticket count the line can be moved by: a non-negative whole number. */
export const isTicketCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * The answer's position and estimate, with its `ticket` and `served` (an extension) only when both
 * are non-negative whole numbers: a bad pair is dropped, not the answer.
 */
export function shownPart({ position, estimated, ticket, served }: QueueInfo): QueueInfo {
  return isTicketCount(ticket) && isTicketCount(served) ? { position, estimated, ticket, served } : { position, estimated };
}

/**
 * One queue_info call that never errors (rule: a failed call never ends the status stream).
 * Emits exactly one PollResult, then completes:
 * - `{ok: true, info, at}` for the first answer, `at` being `scheduler.now()` when it arrived;
 * - `{ok: false, lost: true}` when the call errors with a lost-place marker (`isPlaceLost`);
 * - `{ok: false}` when the call errors otherwise (or throws), completes without an answer, or
 *   answers something that is not a non-negative finite position and estimate — showing NaN or
 *   starting the position-0 watchdog on garbage would be worse than counting a failure.
 * The answer keeps `ticket` and `served` only when both are non-negative whole numbers; anything
 * else drops the two (the extension is lost, the answer is not).
 */
export function callQueueInfo(
  queueInfo: () => Observable<QueueInfo>,
  scheduler: SchedulerLike,
): Observable<PollResult> {
  return defer(queueInfo).pipe(
    take(1),
    map((info): PollResult =>
      isShowable(info)
        ? { ok: true, info: shownPart(info), at: scheduler.now() }
        : FAILED,
    ),
    defaultIfEmpty(FAILED),
    catchError((error: unknown) => of(isPlaceLost(error) ? LOST : FAILED)),
  );
}
