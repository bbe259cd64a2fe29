import {
  asyncScheduler,
  concatMap,
  connect,
  EMPTY,
  filter,
  map,
  merge,
  of,
  shareReplay,
  startWith,
  switchMap,
  take,
  takeWhile,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import type { Timings } from './contract/constants.js';
import { isLive, type Failed } from './status.js';
import { resolveTimings } from './timings.js';
import type { ConnectionState, QueueOptions, QueueSources, QueueStatus, SourceName } from './types.js';
import { subscribeChannel } from './rules/channel-subscription.js';
import { comeBack } from './rules/come-back.js';
import { connectionCheck } from './rules/connection-check.js';
import { leave } from './rules/leave.js';
import { lineMoved } from './rules/line-moved.js';
import { leaveAfterFailure } from './rules/leave-after-failure.js';
import { lostPlace } from './rules/lost-place.js';
import { movedAway } from './rules/moved-away.js';
import { opening } from './rules/opening.js';
import { poll } from './rules/poll.js';
import { positionZero } from './rules/position-zero.js';
import { sendQueueRequest } from './rules/queue-request.js';
import { rejoin } from './rules/rejoin.js';
import { releaseOnce } from './rules/release-once.js';
import type { HeldRequest } from './rules/replay.js';
import { endOnError } from './rules/source-errors.js';
import { waiting } from './rules/waiting.js';

/**
 * The status of a visitor waiting in line, from everything the outside world tells.
 *
 * Emits, in order:
 * 1. `loading` at once (connection 'initialized' until the first state arrives), then a new
 *    `loading` each time the connection state or the failed-call count changes;
 * 2. after the first successful queue_info answer, `waiting` with position, estimated minutes
 *    and `updatedAt`, again on every answer, on every change of connection or `failedPolls`, and
 *    on every `moved$` event that moves the visitor up (never to 0, never back up); beyond
 *    the spec, while the answers say the visitor is in a scheduled event's pre-queue (`opensIn`),
 *    `loading` with `opensAt` instead, and each `opened$` event brings one more queue_info call
 *    within its spread, which ends it;
 * 3. then exactly one ending:
 *    - `released` with the replay to perform, then completes (first release event only);
 *    - or `failed` with the spec's exact message (position 0 for 10 s, or not connected 30 s
 *      after `unavailable`/`error`), `leaving` 'back' 2 s later, `leaving` 'root' 3 s after
 *      that, then completes;
 *    - or, beyond the spec, `lost` when a queue_info call says the place is unknown (see
 *      `placeLost`; e.g. the server restarted and forgot its line): for a held GET, with
 *      `rejoin` set to its target and `rejoining` 3 s later (`rejoinDelay`), then completes; for
 *      another verb, with `rejoin` null, and completes at once. A release event received first
 *      wins: the stream has ended at `released`, and a lost place after it cannot matter;
 *    - or, beyond the spec, `moved` when the place moved to another browser (a `handedOff$` event,
 *      or a queue_info call saying so, see `placeMovedAway`), then completes: this page never
 *      replays. A release event received first wins, as for `lost`;
 *    - or, with no pending request URI, only `leaving` 'back' at once, `leaving` 'root' 3 s
 *      later, then completes, without subscribing to any source.
 * At the ending every source, call, poll and timer is let go: nothing after it can matter.
 *
 * With `options.queueInfoAtStart` (an extension), queue_info is also asked once at subscription,
 * before any connection state: the first `waiting` needs no realtime connection; `connected` then
 * starts the 60 s poll as the spec has it, a call in flight giving way to its fresh one.
 *
 * With `sources.back$` (an extension), each return of the visitor to the page (its signals quiet
 * for `backQuiet`, 250 ms) asks queue_info once, and the 60 s poll starts again from that call.
 *
 * With the bot check (`sources.altcha$`, an extension), each queue_request waits for the solution's
 * first value and carries it, and once one carrying it was answered, queue_info is asked at once
 * (the 60 s poll starts again from there): the place has just entered the line. Until then queue_info may say the place is pending (`placePending`), which
 * neither counts as a failed poll nor changes the status. Without `altcha$`, nothing of this runs.
 * It never errors: failed calls are counted or dropped, and an error in a hot source or in
 * `subscribe()` ends that source only (reported through `options.onSourceError`).
 *
 * Sharing: the stream is already shared (`shareReplay({ bufferSize: 1, refCount: true })`):
 * every subscriber sees one run (one set of polls, one channel subscription), a late subscriber
 * gets the current status at once, and after the end a new subscriber gets the last status and
 * completion without a second run, so the release cannot be replayed twice by subscribing
 * again. When every subscriber leaves before the end, the run is torn down and the next
 * subscriber starts a fresh one (a StrictMode remount). Create it once per page.
 *
 * Throws a RangeError when an `options.timings` override is not a valid duration.
 */
export function createQueue$(sources: QueueSources, options: QueueOptions): Observable<QueueStatus> {
  const timings = resolveTimings(options.timings);
  const scheduler = options.scheduler ?? asyncScheduler;
  const { uri } = options.request;
  const run$: Observable<QueueStatus> =
    uri === null || uri.trim() === ''
      ? leave(timings.rootFallback, scheduler)
      : inLine(sources, options, { ...options.request, uri }, timings, scheduler).pipe(
          takeWhile(isLive, true),
          concatMap((status) =>
            status.kind === 'failed'
              ? leaveAfterFailure(status.message, timings.leaveDelay, timings.rootFallback, scheduler)
              : status.kind === 'lost'
                ? rejoin(status, timings.rejoinDelay, scheduler)
                : of(status),
          ),
        );
  return run$.pipe(shareReplay({ bufferSize: 1, refCount: true }));
}

/**
 * Every rule at once, while the visitor is in line: live statuses, then the first of
 * `released`, `failed` or `lost` (the caller stops there). The state, the subscriptions and the
 * poll answers feed several rules each, so each is multicast with `connect`, which wires every
 * rule before the source starts: nothing a source emits on subscription is lost, and each source
 * is subscribed once.
 */
function inLine(sources: QueueSources, options: QueueOptions, request: HeldRequest, timings: Timings, scheduler: SchedulerLike): Observable<QueueStatus> {
  const { onSourceError } = options;
  const guarded = <T>(name: SourceName, source$: Observable<T>) => source$.pipe(endOnError<T>(name, onSourceError));
  const state$ = guarded('state$', sources.state$).pipe(startWith<ConnectionState>('initialized'));

  return state$.pipe(
    connect((state$) =>
      guarded('subscribed$', sources.subscribed$).pipe(
        connect((subscribed$) =>
          merge(
            poll(
              // queue_request's calls run inside the 60 s poll's start: one that carried the bot
              // check's solution and was answered starts it again, the place having entered the line.
              merge(
                options.queueInfoAtStart ? of(null) : EMPTY,
                state$.pipe(filter((state) => state === 'connected')),
                opening(guarded('opened$', sources.opened$ ?? EMPTY), request.uuid, scheduler),
                comeBack(guarded('back$', sources.back$ ?? EMPTY), timings.backQuiet, scheduler),
                sendQueueRequest(subscribed$, sources.queueRequest, sources.altcha$ && guarded('altcha$', sources.altcha$)),
              ),
              sources.queueInfo,
              timings.poll,
              scheduler,
            ),
            options.anonymous ? poll(subscribed$, sources.queueInfo, timings.anonymousPoll, scheduler) : EMPTY,
          ).pipe(
            connect((results$) =>
              merge(
                waiting(lineMoved(results$, guarded('moved$', sources.moved$ ?? EMPTY), scheduler), state$),
                subscribeChannel(state$, sources.subscribe, onSourceError),
                // Listened to once the first status is out, so that even a release at once comes after `loading`.
                releaseOnce(
                  state$.pipe(
                    take(1),
                    switchMap(() => guarded('release$', sources.release$)),
                  ),
                  request,
                ),
                lostPlace(results$, request),
                movedAway(results$, guarded('handedOff$', sources.handedOff$ ?? EMPTY)),
                merge(
                  positionZero(results$, timings.positionZeroTimeout, scheduler),
                  connectionCheck(state$, guarded('error$', sources.error$), timings.connectionCheck, scheduler),
                ).pipe(map((message): Failed => ({ kind: 'failed', message }))),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}
