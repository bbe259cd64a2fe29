import type { Observable } from 'rxjs';
import { readQueueInfo } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import { fromFetch, type FetchLike } from './http';

/**
 * The queue_info call (spec section 7, call 2): each subscription GETs the route with `{uuid}`
 * filled, bypassing the HTTP cache, then emits `{position, estimated}` (with `ticket` and
 * `served` when the server sends them) or errors (`onAnswer` hears each 2xx answer's whole JSON): with a lost place when the server does not
 * know the uuid, otherwise with a plain Error (a failed poll).
 */
export function createQueueInfo(fetch: FetchLike, route: string, uuid: string, onAnswer?: (body: unknown) => void): () => Observable<QueueInfo> {
  const url = route.replace('{uuid}', encodeURIComponent(uuid));
  // What else a successful answer says (the operator's message) is handed on as it was read.
  const read = (response: Response) =>
    readQueueInfo({
      status: response.status,
      ok: response.ok,
      json: () => response.json().then((body: unknown) => (response.ok && onAnswer?.(body), body)),
    });
  return () => fromFetch(fetch, url, { method: 'GET', cache: 'no-store', credentials: 'same-origin', headers: { Accept: 'application/json' } }, read);
}
