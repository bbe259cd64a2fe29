import type { QueuedRequest, Replay } from '../types.js';

/** A held request that has a pending URI (the page leaves at once without one). */
export type HeldRequest = QueuedRequest & { readonly uri: string };

/**
 * How to replay the held request (spec section 4):
 * - GET (any case) → navigate to the URI with the address bar's hash kept;
 * - any other verb → a hidden form POSTed to the URI, carrying the real method upper-cased
 *   (sent as `_method` when not POST) and the queue uuid.
 * A blank method counts as GET, HTTP's default: navigating is the replay that cannot change
 * anything on the server by mistake.
 */
export function replayOf(request: HeldRequest): Replay {
  const method = request.method.trim().toUpperCase() || 'GET';
  return method === 'GET' ? { kind: 'navigate', target: request.uri + request.hash } : { kind: 'form', action: request.uri, method, uuid: request.uuid };
}
