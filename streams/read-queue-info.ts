import { PENDING_STATUS, queueInfoOf, type QueueInfo } from './contract/queue-info.js';
import { MOVED_AWAY, UNKNOWN_UUID } from './contract/names.js';
import { placeLost, placeMovedAway, placePending } from './place-lost.js';

/** What `readQueueInfo` needs of an HTTP answer: the standard `Response` fits. */
export interface ResponseLike {
  readonly status: number;
  readonly ok: boolean;
  json(): Promise<unknown>;
}

/**
 * Reads a queue_info answer as a `queueInfo()` source must: resolves with the position for a 2xx
 * whose JSON `queueInfoOf` can read; rejects with `placePending()` for a `202` (the place waits
 * for its bot check), with `placeLost()` for a `404` whose error code is `unknown_uuid` (the
 * server does not know the place), with `placeMovedAway()` for a `410` whose error code is
 * `place_moved` (the place moved to another browser), and with a plain `Error` for anything else, a failed poll. Any
 * other 404 (a missing route, a proxy's page) is a failed poll too: taking it for a lost place
 * would send every visitor round again.
 */
export async function readQueueInfo(response: ResponseLike): Promise<QueueInfo> {
  if (response.status == PENDING_STATUS) throw placePending(`queue_info answered ${PENDING_STATUS}`);
  const body: unknown = await response.json().catch(() => null);
  if (response.status == 404 && (body as { error?: { code?: unknown } } | null)?.error?.code == UNKNOWN_UUID) {
    throw placeLost(`queue_info answered 404 ${UNKNOWN_UUID}`);
  }
  if (response.status == 410 && (body as { error?: { code?: unknown } } | null)?.error?.code == MOVED_AWAY) {
    throw placeMovedAway(`queue_info answered 410 ${MOVED_AWAY}`);
  }
  const info = response.ok ? queueInfoOf(body) : null;
  if (!info) throw new Error(response.ok ? 'queue_info answer is malformed' : `queue_info answered ${response.status}`);
  return info;
}
