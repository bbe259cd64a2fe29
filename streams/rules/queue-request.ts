import { catchError, defer, EMPTY, ignoreElements, mergeMap, take, type Observable } from 'rxjs';

/**
 * Sends queue_request (spec section 7, call 1: "once the channel subscription succeeds").
 * On each `subscribed$` emission, subscribes `queueRequest()` once.
 *
 * Each call runs to its end (mergeMap): it means "I am listening" to the server, and cancelling
 * a POST in flight could leave the server unsure of it, while a second subscription only comes
 * after a reconnect, so calls do not pile up. A failed call is dropped (its answer is not read)
 * and never ends the status stream; the next subscription sends a new one.
 *
 * With the bot check (`altcha$`, an extension), each call waits for the solution's first value
 * and carries it (`queueRequest(altcha)`), and what the call emits (its answer) is emitted: the
 * place has entered the line, and its position can be asked at once. Without `altcha$`, the call
 * goes at once as `queueRequest()` and nothing is emitted.
 */
export function sendQueueRequest(
  subscribed$: Observable<unknown>,
  queueRequest: (altcha?: string) => Observable<unknown>,
  altcha$?: Observable<string>,
): Observable<unknown> {
  const call = (
    altcha$
      ? altcha$.pipe(
          take(1),
          mergeMap((altcha) => defer(() => queueRequest(altcha))),
        )
      : defer(queueRequest).pipe(ignoreElements())
  ).pipe(catchError(() => EMPTY));
  return subscribed$.pipe(mergeMap(() => call));
}
