import { defer, filter, from, map, merge, Observable, of, ReplaySubject, startWith, switchMap, take, throwError } from 'rxjs';
import { placeLost, placePending, type ConnectionState, type QueueSources } from '@waiting-room/streams';
import { CHANNELS, PENDING_STATUS, queueInfoOf, UNKNOWN_UUID, type AltchaChallenge, type LineMoved, type QueueInfo } from '@waiting-room/streams/contract';
import type { HeldAnswer } from './held-answer';
import type { Channel, Emitter, RealtimeClient } from './realtime';

/** `fetch`, or anything that answers a Request as it does (a test's, with a cookie jar). */
export type Fetch = (request: Request) => Promise<Response>;

/** The connection error code of a refused private subscription. */
const UNAUTHORIZED = 4009;

/** One pusher-js event as an observable of its data; unbound on teardown. */
const on = <T>(emitter: Emitter, event: string): Observable<T> =>
  new Observable<T>((subscriber) => {
    const handler = (data: unknown) => subscriber.next(data as T);
    emitter.bind(event, handler);
    return () => emitter.unbind(event, handler);
  });

/** One HTTP call as a cold observable: fetches on subscription, aborted on unsubscription. */
const call = <T>(fetch: Fetch, url: string, init: RequestInit, read: (response: Response) => Promise<T>): Observable<T> =>
  new Observable<T>((subscriber) => {
    const abort = new AbortController();
    fetch(new Request(url, { ...init, signal: abort.signal }))
      .then(read)
      .then(
        (value) => {
          subscriber.next(value);
          subscriber.complete();
        },
        (error: unknown) => subscriber.error(error),
      );
    return () => abort.abort();
  });

/** Solves the bot check's challenge: the payload queue_request sends as `altcha` (bot-check/solve.ts). */
export type SolveAltcha = (challenge: AltchaChallenge) => Promise<string>;

/**
 * A queue_info answer as the waiting page reads it: a 404 `unknown_uuid` is a lost place, a 202 a
 * place pending its bot check, anything unreadable a failed poll.
 */
async function readQueueInfo(response: Response): Promise<QueueInfo> {
  if (response.status == PENDING_STATUS) throw placePending('queue_info answered 202');
  const body: unknown = await response.json().catch(() => null);
  if (response.status == 404 && (body as { error?: { code?: unknown } } | null)?.error?.code == UNKNOWN_UUID) {
    throw placeLost(`queue_info answered 404 ${UNKNOWN_UUID}`);
  }
  const info = response.ok ? queueInfoOf(body) : null;
  if (!info) throw new Error(`queue_info answered ${response.status}`);
  return info;
}

/**
 * The stream core's sources for one held answer, over one realtime client and `fetch`: the
 * waiting page's, event for event and call for call (the visitor's channel, public or private,
 * joined on each 'connected'; `RequestUnqueud` on it; `QueueMoved` on `App.Queue`; queue_info
 * and queue_request on the config's routes, on the gateway's origin, with the session cookie).
 * With a bot check (the config's `altcha`), the challenge is solved at once by `solveAltcha`, and
 * queue_request carries the solution, as the page's does.
 */
export function queueSources(client: RealtimeClient, { config, origin }: HeldAnswer, fetch: Fetch, solveAltcha?: SolveAltcha): QueueSources {
  const { queue, userId, csrfToken, routes } = config;
  // Sought at once; the promise keeps it for every queue_request, and a failure is reported when
  // the core asks for it (a challenge no solver is given fails there too).
  const solution = config.altcha && (solveAltcha ? solveAltcha(config.altcha) : Promise.reject(new Error('The bot check has no solver')));
  solution?.catch(() => undefined);
  const { connection } = client;
  const channelName = userId ? CHANNELS.user(userId, queue.uuid) : CHANNELS.client(queue.uuid);
  const channel$ = new ReplaySubject<Channel>(1);
  const onChannel = <T>(event: string) =>
    channel$.pipe(
      take(1),
      switchMap((channel) => on<T>(channel, event)),
    );
  const error$ = on<unknown>(connection, 'error');
  const refused = (detail: unknown) => throwError(() => new Error(`Subscription to ${channelName} refused: ${JSON.stringify(detail)}`));
  const infoUrl = origin + routes.queue_info.replace('{uuid}', encodeURIComponent(queue.uuid));
  const json = { Accept: 'application/json' };

  return {
    state$: defer(() =>
      on<{ current: ConnectionState }>(connection, 'state_change').pipe(
        map((change) => change.current),
        startWith(connection.state as ConnectionState),
      ),
    ),
    error$,
    subscribed$: onChannel('pusher:subscription_succeeded'),
    release$: onChannel(CHANNELS.releaseEvent),
    moved$: channel$.pipe(
      take(1),
      switchMap(() => on<LineMoved>(client.subscribe(CHANNELS.queue), CHANNELS.movedEvent)),
    ),
    subscribe: () =>
      defer(() => {
        const channel = client.subscribe(channelName);
        channel$.next(channel);
        // pusher-js subscribes a channel once, and again by itself after a reconnection.
        if (channel.subscribed) return of(channel);
        return merge(
          on(channel, 'pusher:subscription_succeeded'),
          on(channel, 'pusher:subscription_error').pipe(switchMap(refused)),
          error$.pipe(
            filter((error) => (error as { data?: { code?: unknown } } | null)?.data?.code === UNAUTHORIZED),
            switchMap(refused),
          ),
        ).pipe(take(1));
      }),
    queueInfo: () => call(fetch, infoUrl, { cache: 'no-store', credentials: 'same-origin', headers: json }, readQueueInfo),
    queueRequest: (altcha?: string) =>
      call(
        fetch,
        origin + routes.queue_request,
        {
          method: 'POST',
          credentials: 'same-origin',
          headers: { ...json, 'Content-Type': 'application/json' },
          // JSON leaves an undefined `altcha` out.
          body: JSON.stringify({ _token: csrfToken, user_id: userId, uuid: queue.uuid, altcha }),
        },
        async () => undefined,
      ),
    ...(solution && { altcha$: from(solution) }),
  };
}
