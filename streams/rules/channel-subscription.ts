import { defer, filter, ignoreElements, switchMap, type Observable } from 'rxjs';
import type { ConnectionState, SourceErrorHandler } from '../types.js';
import { endOnError } from './source-errors.js';

/**
 * Requests the channel subscription (spec section 4, "On 'connected': subscribe to the channel").
 * On each `connected` in `state$`, subscribes `subscribe()`; a reconnect tears the previous
 * request down before making a new one (switchMap), so subscriptions never stack. The request
 * stays subscribed until the status stream ends. Emits nothing; an error in the request is
 * handed to `onSourceError` and ends that request only.
 */
export function subscribeChannel(
  state$: Observable<ConnectionState>,
  subscribe: () => Observable<unknown>,
  onSourceError?: SourceErrorHandler,
): Observable<never> {
  return state$.pipe(
    filter((state) => state === 'connected'),
    switchMap(() => defer(subscribe).pipe(ignoreElements(), endOnError<never>('subscribe', onSourceError))),
  );
}
