import type { Observable } from 'rxjs';
import { placeLost, placePending } from '@waiting-room/streams';
import { PENDING_STATUS, queueInfoOf, UNKNOWN_UUID, type QueueInfo } from '@waiting-room/streams/contract';
import { fromFetch, type FetchLike } from './http';

/**
 * Reads a queue_info answer; anything but a 2xx JSON `{position, estimated}` of non-negative
 * numbers throws. The extension's `ticket` and `served` are kept when both are non-negative whole
 * numbers, and otherwise left out: without them the page only waits for polls, as the spec has it.
 * A 404 whose JSON error code is `unknown_uuid` throws a lost place (`placeLost()`): the server
 * does not know this place (any longer). Any other 404 (a missing route, a proxy's page) is a
 * failed poll like a 5xx: taking it for a lost place would send every visitor round again.
 * A 202 throws a pending place (`placePending()`): the place waits for its bot check.
 */
export async function readQueueInfo(response: Response): Promise<QueueInfo> {
  if (response.status == PENDING_STATUS) throw placePending('queue_info answered 202');
  if (!response.ok) {
    const body = response.status == 404 && ((await response.json().catch(() => null)) as { error?: { code?: unknown } } | null);
    if (body && body.error?.code == UNKNOWN_UUID) throw placeLost(`queue_info answered 404 ${UNKNOWN_UUID}`);
    throw new Error(`queue_info answered ${response.status}`);
  }
  // The contract's reading, which the core applies too: the page and the core never disagree on what is showable.
  const info = queueInfoOf(await response.json());
  if (!info) throw new Error('queue_info answer is malformed');
  return info;
}

/**
 * The queue_info call (spec section 7, call 2): each subscription GETs the route with `{uuid}`
 * filled, bypassing the HTTP cache, then emits `{position, estimated}` (with `ticket` and
 * `served` when the server sends them) or errors: with a lost place when the server does not
 * know the uuid, otherwise with a plain Error (a failed poll).
 */
export function createQueueInfo(fetch: FetchLike, route: string, uuid: string): () => Observable<QueueInfo> {
  const url = route.replace('{uuid}', encodeURIComponent(uuid));
  return () => fromFetch(fetch, url, { method: 'GET', cache: 'no-store', credentials: 'same-origin', headers: { Accept: 'application/json' } }, readQueueInfo);
}
