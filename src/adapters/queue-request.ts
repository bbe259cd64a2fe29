import type { Observable } from 'rxjs';
import { fromFetch, type FetchLike } from './http';

/** The queue_request body (spec section 7, call 1). */
export interface QueueRequestBody {
  readonly _token: string;
  readonly user_id: number;
  readonly uuid: string;
}

/**
 * The queue_request call: each subscription POSTs the JSON body, with the bot check's solution as
 * `altcha` when one is given, emits once the server answered (the answer is not read) and
 * completes; errors only when the call cannot be made.
 */
export function createQueueRequest(fetch: FetchLike, route: string, body: QueueRequestBody): (altcha?: string) => Observable<void> {
  const init: RequestInit = {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
  };
  // JSON leaves an undefined `altcha` out: without a bot check, the body is the spec's.
  return (altcha) => fromFetch(fetch, route, { ...init, body: JSON.stringify({ ...body, altcha }) }, () => undefined);
}
