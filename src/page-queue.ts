import {
  EMPTY,
  NEVER,
  connect,
  defer,
  endWith,
  finalize,
  from,
  ignoreElements,
  merge,
  shareReplay,
  takeUntil,
  tap,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import {
  pusherOptions,
  realtimeSources,
  type PusherLike,
  type QueueOptions,
  type QueueSources,
  type QueueStatus,
  type SourceErrorHandler,
} from '@waiting-room/streams';
import { roomMessageOf, type AltchaChallenge, type PageConfig, type RoomMessageJson } from '@waiting-room/streams/contract';
import { createQueueInfo } from './adapters/queue-info';
import { createQueueRequest } from './adapters/queue-request';
import type { FetchLike } from './adapters/http';
import { laterRealtimeSources } from './adapters/later-realtime';
import type { CreatePusherClient } from './adapters/pusher-client';

export interface PageQueueDeps {
  /**
   * Loads the realtime client (a file of its own), when the page is ready to open the connection:
   * the position does not wait for it (see `queueInfoAtStart`).
   */
  readonly loadPusher: () => Promise<CreatePusherClient>;
  readonly fetch: FetchLike;
  readonly createQueue$: (sources: QueueSources, options: QueueOptions) => Observable<QueueStatus>;
  /** Solves the bot check's challenge (lazily loaded): the payload queue_request sends as `altcha`. */
  readonly solveAltcha: (challenge: AltchaChallenge) => Promise<string>;
  readonly scheduler?: SchedulerLike;
  /** Told when a queue_info call fails (the position cannot show from it). */
  readonly onQueueInfoFailed?: () => void;
  /** Told when a realtime source fails (e.g. a refused private subscription); the status goes on. */
  readonly onSourceError?: SourceErrorHandler;
  /** The signs that the visitor is back on the page (`adapters/back.ts`): each return asks queue_info once. */
  readonly back$?: Observable<unknown>;
  /**
   * Told each operator's message heard, pushed (`QueueMessage`) or in a queue_info answer, while
   * the status lasts; the newest is the one with the largest version (`newerMessage`).
   */
  readonly onMessage?: (message: RoomMessageJson) => void;
}

const none = () => NEVER;
const NO_SOURCES: QueueSources = { state$: NEVER, error$: NEVER, subscribed$: NEVER, release$: NEVER, subscribe: none, queueInfo: none, queueRequest: none };

/**
 * The page's one status stream: the adapters feed the stream core, shared once and replaying
 * the latest status to late subscribers (the view mounts after the effects subscribed). The
 * realtime client is created once loaded (`loadPusher`) if still subscribed, and disconnected
 * when the last subscription ends.
 */
export function createPageQueue$(config: PageConfig, hash: string, deps: PageQueueDeps): Observable<QueueStatus> {
  const { queue, userId, csrfToken, routes } = config;
  const options: QueueOptions = {
    anonymous: !userId,
    request: { uuid: queue.uuid, uri: queue.uri, method: queue.method, hash },
    timings: config.timings,
    scheduler: deps.scheduler,
    onSourceError: deps.onSourceError,
    // The first queue_info goes out at once, its answer preloaded by the page's head (server/http/page.ts):
    // the position shows without waiting for the realtime connection. Not while the place waits
    // for its bot check, which only the solution's queue_request ends.
    queueInfoAtStart: !config.altcha,
  };
  return defer(() => {
    // Without a pending URI the core only leaves: no connection, no call.
    if (queue.uri === null) return deps.createQueue$(NO_SOURCES, options);
    let pusher: PusherLike | undefined;
    let stopped = false;
    const realtime = deps.loadPusher().then((create) => {
      if (stopped) return new Promise<never>(() => undefined);
      pusher = create(config.realtime.key, pusherOptions(config));
      return realtimeSources(pusher, config);
    });
    // Sought at once, while the page connects; the promise keeps the solution for every
    // queue_request. A failure is reported when the core asks for it (`onSourceError`), not before.
    const solution = config.altcha && deps.solveAltcha(config.altcha);
    solution?.catch(() => undefined);
    const heard = (body: unknown) => {
      const message = roomMessageOf((body as { message?: unknown } | null)?.message);
      if (message) deps.onMessage?.(message);
    };
    const queueInfo = createQueueInfo(deps.fetch, routes.queue_info, queue.uuid, deps.onMessage && heard);
    // With a pre-queue's opening (beyond the spec), on its channel, joined only by a page in one.
    const { message$, ...realtimeOnes } = laterRealtimeSources(realtime, Boolean(config.event));
    const sources: QueueSources = {
      ...realtimeOnes,
      queueInfo: () => queueInfo().pipe(tap({ error: deps.onQueueInfoFailed })),
      queueRequest: createQueueRequest(deps.fetch, routes.queue_request, { _token: csrfToken, user_id: userId, uuid: queue.uuid }),
      ...(solution && { altcha$: from(solution) }),
      ...(deps.back$ && { back$: deps.back$ }),
    };
    // Beside the status, not a part of it: heard while the status lasts, and ended with it.
    const told$ = deps.onMessage ? (message$ ?? EMPTY).pipe(tap(deps.onMessage), ignoreElements()) : EMPTY;
    return deps.createQueue$(sources, options).pipe(
      connect((status$) => merge(status$, told$.pipe(takeUntil(status$.pipe(ignoreElements(), endWith(null)))))),
      finalize(() => {
        stopped = true;
        pusher?.disconnect();
      }),
    );
  }).pipe(shareReplay({ bufferSize: 1, refCount: true }));
}
