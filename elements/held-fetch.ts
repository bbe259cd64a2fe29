import {
  BehaviorSubject,
  connectable,
  defer,
  distinctUntilChanged,
  finalize,
  firstValueFrom,
  fromEvent,
  map,
  race,
  ReplaySubject,
  scan,
  share,
  startWith,
  Subject,
  switchMap,
  tap,
  throwError,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import { createQueue$, pusherOptions, type PusherLike, type PusherOptions, type QueueStatus, type SourceErrorHandler } from '@waiting-room/streams';
import { WaitingRoomError } from './errors';
import { readHeldAnswer, type HeldAnswer } from './held-answer';
import { NO_PROGRESS, NOTHING_HELD, nextProgress, progressOf, type Progress, type ProgressEvent } from './progress';
import { queueSources, type Fetch, type SolveAltcha } from './queue-sources';
import { turnOf } from './turn';

/** How many times one request may be held, turn after turn, before `heldFetch()` gives up. */
export const MAX_WAITS = 5;

export interface HeldFetchDeps {
  /** Sends one request: `fetch`, or a test's with a cookie jar. Every call goes through it. */
  readonly fetch: Fetch;
  /** Opens a realtime connection (pusher-js's `new Pusher(key, options)`, which connects at once). */
  readonly createRealtime: (key: string, options: PusherOptions) => PusherLike;
  /** The stream core's timers run on it (default: asyncScheduler). */
  readonly scheduler?: SchedulerLike;
  /** Told when a realtime source fails (a refused private channel); the wait goes on. */
  readonly onSourceError?: SourceErrorHandler;
  /** `MAX_WAITS` by default. */
  readonly maxWaits?: number;
  /** Solves the bot check's challenge of a held answer (bot-check/solve.ts); a held answer with one cannot wait without it. */
  readonly solveAltcha?: SolveAltcha;
}

/** `fetch`, waiting in line when the waiting room holds the request. */
export interface HeldFetch {
  (input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
  /** What the held requests wait for, for `<waiting-room-status>`: the current progress first, then each change. */
  readonly progress$: Observable<Progress>;
}

/** A held answer, and when it came among the others (1, 2, …). */
interface Place {
  readonly held: HeldAnswer;
  readonly order: number;
}

const sameProgress = (a: Progress, b: Progress) => a.held == b.held && a.status === b.status && a.language === b.language;

/** A promise's way out when `signal` aborts: an error with the signal's reason, as fetch rejects. */
const aborted = (signal: AbortSignal): Observable<never> =>
  signal.aborted ? throwError((): unknown => signal.reason) : fromEvent(signal, 'abort').pipe(switchMap(() => throwError((): unknown => signal.reason)));

/** Lets go of a request kept for a retry that will not come: its body may hold a copy of the bytes. */
const discard = (body: { readonly body: ReadableStream | null } | undefined) => void body?.body?.cancel().catch(() => undefined);

/**
 * `fetch` for single-page apps behind the waiting room's gateway. The request is sent as is;
 * when the gateway holds it (a 503 with the page config as JSON, docs/gateway.md), it waits in
 * line as the waiting page does — the same stream core, channels, calls, polls and timed rules —
 * and once released sends the request again, once, and resolves with that answer: the site's.
 * Any other answer, a 503 of the site's own included, resolves the promise as it is.
 *
 * - A body is read once: a copy of the request is kept for each send (`Request.clone()`), and
 *   let go when the answer comes.
 * - Requests held in the same place (one session has one a room) share one wait: one connection,
 *   one set of polls; each is sent again at the turn. The connection closes when the last of them
 *   settles, is aborted, or the wait ends. Requests sent at once before the session existed each
 *   get a place; they all wait for the last one's, whose session the browser kept (`placeIn`).
 * - A place lost (the server forgot it) is joined again after the core's `rejoinDelay`, by
 *   sending the request again, whatever its verb: a held request never reached the site.
 * - Rejects with a `WaitingRoomError`: 'failed' with the specification's message (e.g.
 *   'Websoket KO - unavailable') as soon as the wait fails, 'bad_config' for a held answer
 *   whose config is malformed, 'too_many_waits' when held again after `maxWaits` turns; with the
 *   signal's reason when `init.signal` (or the request's) aborts, sockets and timers let go.
 */
export function createHeldFetch(deps: HeldFetchDeps): HeldFetch {
  const maxWaits = deps.maxWaits ?? MAX_WAITS;
  const events = new Subject<ProgressEvent>();
  const progress$ = connectable(events.pipe(scan(nextProgress, NO_PROGRESS), map(progressOf), startWith(NOTHING_HELD), distinctUntilChanged(sameProgress)), {
    connector: () => new ReplaySubject<Progress>(1),
    resetOnDisconnect: false,
  });
  progress$.connect();
  const waits = new Map<string, Observable<QueueStatus>>();
  const rooms = new Map<string, BehaviorSubject<Place>>();
  let calls = 0;
  let answers = 0;

  /**
   * The place the session has now in the room `held` is from, as the latest held answer says.
   * One session has one place a room, but requests sent at once before the session had its cookie
   * each start a session, with a place of its own, and the browser keeps the cookie it got last:
   * the place of the latest answer (`order`, in the order the answers arrived) is the one whose
   * turn lets a request through. Every request held in the room waits for that one.
   */
  const placeIn = (held: HeldAnswer, order: number): Observable<HeldAnswer> => {
    const room = held.config.routes.queue_info;
    const place$ = rooms.get(room) ?? new BehaviorSubject<Place>({ held, order });
    rooms.set(room, place$);
    const now = place$.getValue();
    if (order > now.order && held.config.queue.uuid != now.held.config.queue.uuid) place$.next({ held, order });
    return place$.pipe(
      map((place) => place.held),
      distinctUntilChanged((a, b) => a.config.queue.uuid == b.config.queue.uuid),
    );
  };

  /** The wait for the place `held` names: one per place, shared by every request held in it. */
  const waitIn = (held: HeldAnswer, target: string): Observable<QueueStatus> => {
    const { config } = held;
    const { uuid } = config.queue;
    const existing = waits.get(uuid);
    if (existing) return existing;
    const wait: Observable<QueueStatus> = defer(() => {
      // The channel authorization on the gateway, which may not be the page's own origin.
      const client = deps.createRealtime(config.realtime.key, pusherOptions(config, held.origin));
      return createQueue$(queueSources(client, held, deps.fetch, deps.solveAltcha), {
        anonymous: !config.userId,
        // The request is sent again here, whatever its verb, so the core's replay is unused; as a
        // GET, a lost place gives `rejoining` after `rejoinDelay`, when the request is sent again.
        request: { uuid, uri: config.queue.uri ?? target, method: 'GET', hash: '' },
        timings: config.timings,
        scheduler: deps.scheduler,
        onSourceError: deps.onSourceError,
      }).pipe(finalize(() => client.disconnect()));
    }).pipe(
      tap((status) => events.next({ kind: 'status', uuid, status })),
      finalize(() => waits.get(uuid) === wait && waits.delete(uuid)),
      share({ connector: () => new ReplaySubject<QueueStatus>(1) }),
    );
    waits.set(uuid, wait);
    return wait;
  };

  async function heldFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    const call = ++calls;
    const { signal } = request;
    const { pathname, search } = new URL(request.url);
    let spare: Request | undefined = request;
    try {
      for (let held = 0; ; held++) {
        const sending: Request = spare;
        // Kept before sending: the body can be read once.
        spare = sending.clone();
        const response = await deps.fetch(sending);
        const order = ++answers;
        const answer = await readHeldAnswer(response, sending.url);
        if (!answer) return response;
        discard(response);
        if (held == maxWaits) throw new WaitingRoomError('too_many_waits', `Held again after ${maxWaits} turns in line: not sent again`);
        const turn$ = placeIn(answer, order).pipe(
          switchMap((place) => {
            events.next({ kind: 'held', request: call, uuid: place.config.queue.uuid, language: place.config.language });
            return turnOf(waitIn(place, pathname + search));
          }),
        );
        await firstValueFrom(race(turn$, aborted(signal)));
      }
    } finally {
      discard(spare);
      events.next({ kind: 'settled', request: call });
    }
  }

  return Object.assign(heldFetch, { progress$ });
}
