import type { Observable } from 'rxjs';
import type { QueueInfo } from '../../streams/types';
import { fromFetch, type FetchLike } from './http';

const isCount = (value: unknown): value is number => typeof value == 'number' && Number.isFinite(value) && value >= 0;

/** Reads a queue_info answer; anything but a 2xx JSON `{position, estimated}` of non-negative numbers throws. */
export async function readQueueInfo(response: Response): Promise<QueueInfo> {
  if (!response.ok) throw new Error(`queue_info answered ${response.status}`);
  const body = (await response.json()) as Partial<QueueInfo> | null;
  if (!isCount(body?.position) || !isCount(body?.estimated)) throw new Error('queue_info answer is malformed');
  return { position: body.position, estimated: body.estimated };
}

/**
 * The queue_info call (spec section 7, call 2): each subscription GETs the route with `{uuid}`
 * filled, bypassing the HTTP cache, then emits `{position, estimated}` or errors (a failed poll).
 */
export function createQueueInfo(fetch: FetchLike, route: string, uuid: string): () => Observable<QueueInfo> {
  const url = route.replace('{uuid}', encodeURIComponent(uuid));
  return () =>
    fromFetch(fetch, url, { method: 'GET', cache: 'no-store', credentials: 'same-origin', headers: { Accept: 'application/json' } }, readQueueInfo);
}
