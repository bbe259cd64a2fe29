import { defer, filter, map, merge, Observable, of, ReplaySubject, shareReplay, startWith, switchMap, take, throwError } from 'rxjs';
import { REALTIME } from './contract/constants.js';
import { CHANNELS } from './contract/names.js';
import type { PageConfig } from './contract/page-config.js';
import type { LineMoved, QueueOpened } from './contract/queue-info.js';
import { roomMessageOf, type RoomMessageJson } from './contract/room-message.js';
import type { ConnectionState, QueueSources } from './types.js';

/**
 * What the adapter needs of a pusher-js event emitter (its connection, a channel). Structural: the
 * package does not depend on pusher-js, and a test's fake fits as well as the real client.
 */
export interface PusherEmitterLike {
  bind(event: string, callback: (data: unknown) => void): unknown;
  unbind(event: string, callback: (data: unknown) => void): unknown;
}

/** What the adapter needs of a pusher-js channel. */
export interface PusherChannelLike extends PusherEmitterLike {
  readonly subscribed: boolean;
}

/** What the adapter needs of a pusher-js client: `new Pusher(key, options)` (pusher-js 8) fits. */
export interface PusherLike {
  readonly connection: PusherEmitterLike & { readonly state: string };
  subscribe(channelName: string): PusherChannelLike;
  disconnect(): void;
}

/** The realtime part of `QueueSources`, for one pusher-js client. */
export type RealtimeSources = Pick<QueueSources, 'state$' | 'error$' | 'subscribe' | 'subscribed$' | 'release$'> & {
  readonly moved$: Observable<LineMoved>;
  readonly opened$?: Observable<QueueOpened>;
  /** Beside the status (since 1.6.0): each `QueueMessage` on the line-wide channel, read by `roomMessageOf`. */
  readonly message$?: Observable<RoomMessageJson>;
  readonly handedOff$?: Observable<unknown>;
};

/** pusher-js's transport names, as `REALTIME.enabledTransports` lists them. */
export type PusherTransport = (typeof REALTIME.enabledTransports)[number];

/** pusher-js options: assignable to pusher-js 8's `Options`, written without its types. */
export interface PusherOptions {
  readonly cluster: string;
  readonly wsHost?: string;
  readonly httpHost?: string;
  readonly httpPort?: number;
  readonly httpsPort?: number;
  readonly wsPort: number;
  readonly wssPort: number;
  readonly forceTLS: boolean;
  readonly enabledTransports: PusherTransport[];
  readonly activityTimeout: number;
  readonly pongTimeout: number;
  readonly unavailableTimeout: number;
  readonly channelAuthorization: { readonly endpoint: string; readonly transport: 'ajax'; readonly headers: { readonly 'X-CSRF-TOKEN': string } };
}

/** A refused channel subscription: `pusher:subscription_error`, or a connection error 4009. */
export class SubscriptionError extends Error {
  constructor(
    readonly channel: string,
    readonly detail: unknown,
  ) {
    super(`Subscription to ${channel} failed: ${JSON.stringify(detail)}`);
  }
}

/** The connection error code of an unauthorized private subscription. */
const UNAUTHORIZED = 4009;

/** One pusher-js event as an observable of its data; the handler is unbound on teardown. */
export const fromPusherEvent = <T>(emitter: PusherEmitterLike, event: string): Observable<T> =>
  new Observable<T>((subscriber) => {
    const handler = (data: unknown) => subscriber.next(data as T);
    emitter.bind(event, handler);
    return () => emitter.unbind(event, handler);
  });

/**
 * pusher-js options for a checked page config: the realtime server's host, port and TLS, the
 * specification's transports and timeouts, and the channel authorization at the config's
 * `realtime.authEndpoint`, with the CSRF token. `origin` goes before that path when the page is
 * not on the waiting room's own origin (a front end that calls the gateway from elsewhere).
 */
export function pusherOptions(config: Pick<PageConfig, 'realtime' | 'csrfToken'>, origin = ''): PusherOptions {
  const { realtime, csrfToken } = config;
  // The HTTP fallback transports have host settings of their own; without them they would leave
  // a self-hosted server for Pusher's own cluster.
  const host = realtime.host ? { wsHost: realtime.host, httpHost: realtime.host, httpPort: realtime.port, httpsPort: realtime.port } : {};
  return {
    cluster: realtime.cluster,
    ...host,
    wsPort: realtime.port,
    wssPort: realtime.port,
    forceTLS: realtime.forceTLS,
    enabledTransports: [...REALTIME.enabledTransports],
    activityTimeout: REALTIME.activityTimeout,
    pongTimeout: REALTIME.pongTimeout,
    unavailableTimeout: REALTIME.unavailableTimeout,
    channelAuthorization: { endpoint: origin + realtime.authEndpoint, transport: 'ajax', headers: { 'X-CSRF-TOKEN': csrfToken } },
  };
}

/**
 * The realtime sources of `createQueue$` over one pusher-js client, for a checked page config:
 * - `state$`: the current connection state on subscription, then each `state_change`;
 * - `error$`: each connection `error`;
 * - `subscribe()`: joins the visitor's channel (private `CHANNELS.user` for a signed-in visitor,
 *   public `CHANNELS.client` otherwise); emits once subscribed, or errors with a
 *   `SubscriptionError`. pusher-js ignores a repeat and joins again by itself after a reconnection;
 * - `subscribed$`, `release$`, `handedOff$`: `pusher:subscription_succeeded`, `RequestUnqueud` and
 *   `PlaceHandedOff` on that channel, once `subscribe()` has created it (the core calls it on `'connected'`);
 * - `moved$`: `QueueMoved` on the public line-wide channel the config names (`realtime.queueChannel`, `App.Queue` by default), joined with the visitor's channel; should
 *   that fail, only the pushes are lost, the polls go on;
 * - `message$`: `QueueMessage` on that same line-wide channel, joined with the visitor's channel
 *   too (so never before it): the operator's message, each one `roomMessageOf` can read;
 * - `opened$`, only in a scheduled event's pre-queue (the config's `event`): `QueueOpened` on
 *   `CHANNELS.event(id)`.
 * Disconnecting the client is the caller's, once the status stream completes.
 */
export function realtimeSources(pusher: PusherLike, config: Pick<PageConfig, 'queue' | 'userId' | 'event' | 'realtime'>): RealtimeSources {
  const { connection } = pusher;
  const { queue, userId, event } = config;
  const channelName = userId ? CHANNELS.user(userId, queue.uuid) : CHANNELS.client(queue.uuid);
  // The visitor's channel, once `subscribe()` has created it.
  const channel$ = new ReplaySubject<PusherChannelLike>(1);
  const onChannel = <T>(name: string) =>
    channel$.pipe(
      take(1),
      switchMap((channel) => fromPusherEvent<T>(channel, name)),
    );
  // The line-wide channel, joined once the visitor's is (never before), once for both its events.
  const line$ = channel$.pipe(
    take(1),
    map(() => pusher.subscribe(config.realtime.queueChannel)),
    shareReplay({ bufferSize: 1, refCount: false }),
  );
  const error$ = fromPusherEvent<unknown>(connection, 'error');
  const refused = (detail: unknown) => throwError(() => new SubscriptionError(channelName, detail));

  return {
    state$: defer(() =>
      fromPusherEvent<{ current: ConnectionState }>(connection, 'state_change').pipe(
        map((change) => change.current),
        startWith(connection.state as ConnectionState),
      ),
    ),
    error$,
    subscribed$: onChannel<unknown>('pusher:subscription_succeeded'),
    release$: onChannel<unknown>(CHANNELS.releaseEvent),
    handedOff$: onChannel<unknown>(CHANNELS.handedOffEvent),
    moved$: line$.pipe(switchMap((line) => fromPusherEvent<LineMoved>(line, CHANNELS.movedEvent))),
    message$: line$.pipe(
      switchMap((line) => fromPusherEvent<unknown>(line, CHANNELS.messageEvent)),
      map(roomMessageOf),
      filter((message): message is RoomMessageJson => message !== null),
    ),
    subscribe: (): Observable<unknown> =>
      defer(() => {
        const channel = pusher.subscribe(channelName);
        channel$.next(channel);
        return channel.subscribed
          ? of(channel)
          : merge(
              fromPusherEvent(channel, 'pusher:subscription_succeeded'),
              fromPusherEvent(channel, 'pusher:subscription_error').pipe(switchMap(refused)),
              error$.pipe(
                filter((error) => (error as { data?: { code?: unknown } } | null)?.data?.code === UNAUTHORIZED),
                switchMap(refused),
              ),
            ).pipe(take(1));
      }),
    ...(event && { opened$: defer(() => fromPusherEvent<QueueOpened>(pusher.subscribe(CHANNELS.event(event.id)), CHANNELS.openedEvent)) }),
  };
}
