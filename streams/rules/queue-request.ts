import { catchError, defer, EMPTY, ignoreElements, mergeMap, type Observable } from 'rxjs';

/**
 * Sends queue_request (spec section 7, call 1: "once the channel subscription succeeds").
 * On each `subscribed$` emission, subscribes `queueRequest()` once. Emits nothing.
 *
 * Each call runs to its end (mergeMap): it means "I am listening" to the server, and cancelling
 * a POST in flight could leave the server unsure of it, while a second subscription only comes
 * after a reconnect, so calls do not pile up. A failed call is dropped (its answer is not read)
 * and never ends the status stream; the next subscription sends a new one.
 */
export function sendQueueRequest(
  subscribed$: Observable<unknown>,
  queueRequest: () => Observable<unknown>,
): Observable<never> {
  return subscribed$.pipe(
    mergeMap(() => defer(queueRequest).pipe(ignoreElements(), catchError(() => EMPTY))),
  );
}
