import { Observable, ReplaySubject, defer, filter, map, merge, of, startWith, switchMap, take, throwError } from 'rxjs';
import type { ConnectionState } from '@waiting-room/streams';
import { CHANNELS, type LineMoved } from '@waiting-room/streams/contract';

/** What the adapter needs of a pusher-js event emitter (a connection or a channel). */
export interface EventEmitterLike {
  bind(event: string, callback: (data: unknown) => void): unknown;
  unbind(event: string, callback: (data: unknown) => void): unknown;
}

export interface ChannelLike extends EventEmitterLike {
  readonly subscribed: boolean;
}

/** What the page needs of a pusher-js client; the real `Pusher` fits, and so does a test fake. */
export interface PusherLike {
  readonly connection: EventEmitterLike & { readonly state: string };
  subscribe(channelName: string): ChannelLike;
  disconnect(): void;
}

/** A failed channel subscription: `pusher:subscription_error`, or a connection error 4009. */
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

/**
 * One pusher-js event as an observable; the handler is unbound on teardown. Emits the data only.
 * (rxjs's fromEventPattern does the same with more code loaded before the position shows.)
 */
export const fromPusherEvent = <T>(emitter: EventEmitterLike, event: string): Observable<T> =>
  new Observable<T>((subscriber) => {
    const handler = (data: unknown) => subscriber.next(data as T);
    emitter.bind(event, handler);
    return () => emitter.unbind(event, handler);
  });

/**
 * The realtime part of the stream core's sources, for one client and one channel.
 * - `state$`: the current connection state on subscription, then each `state_change`.
 * - `error$`: each connection `error`.
 * - `subscribe()`: subscribes the channel (pusher-js ignores repeats and re-subscribes on
 *   reconnection); emits once subscribed, or errors with a SubscriptionError.
 * - `subscribed$`, `release$`: `pusher:subscription_succeeded` and `RequestUnqueud` on the
 *   channel, once `subscribe()` has created it — the channel is not joined before `connected`.
 * - `moved$`: `QueueMoved` on the public line-wide channel `App.Queue` (an extension). That
 *   channel is joined with the visitor's, on the first `subscribe()` (pusher-js joins it again
 *   after a reconnection); should it fail, only the pushes are lost: the polls go on.
 */
export function createRealtimeSources(pusher: PusherLike, channelName: string) {
  const { connection } = pusher;
  // Private: the channel, once `subscribe()` has created it.
  const channel$ = new ReplaySubject<ChannelLike>(1);
  const onChannel = <T>(event: string) =>
    channel$.pipe(
      take(1),
      switchMap((channel) => fromPusherEvent<T>(channel, event)),
    );
  const error$ = fromPusherEvent<unknown>(connection, 'error');
  const fail = (detail: unknown) => throwError(() => new SubscriptionError(channelName, detail));

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
    moved$: channel$.pipe(
      take(1),
      switchMap(() => fromPusherEvent<LineMoved>(pusher.subscribe(CHANNELS.queue), CHANNELS.movedEvent)),
    ),
    subscribe: (): Observable<unknown> =>
      defer(() => {
        const channel = pusher.subscribe(channelName);
        channel$.next(channel);
        return channel.subscribed
          ? of(channel)
          : merge(
              fromPusherEvent(channel, 'pusher:subscription_succeeded'),
              fromPusherEvent(channel, 'pusher:subscription_error').pipe(switchMap(fail)),
              error$.pipe(
                filter((error) => (error as { data?: { code?: unknown } } | null)?.data?.code === UNAUTHORIZED),
                switchMap(fail),
              ),
            ).pipe(take(1));
      }),
  };
}

export type RealtimeSources = ReturnType<typeof createRealtimeSources>;
