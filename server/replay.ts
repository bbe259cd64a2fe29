import type { FastifyRequest } from 'fastify';
import { parseBody, textField } from './body';
import { HttpError } from './errors';
import { requestTarget } from './http/target';
import { normalizeTarget } from './request-target';
import type { Session } from './session';
import type { QueueStore } from './store/types';

/** The held request a replay restored. */
export interface Replayed {
  readonly uuid: string;
  readonly method: string;
  readonly uri: string;
}

const replays = new WeakMap<FastifyRequest, Replayed>();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The held request this request replays, if it is a replay. */
export function replayOf(request: FastifyRequest): Replayed | undefined {
  return replays.get(request);
}

/** The verb the handler should act on: the held one for a replay (a form can only POST). */
export function effectiveMethod(request: FastifyRequest): string {
  return replays.get(request)?.method ?? request.method;
}

/**
 * Restores the held request that the page's replay form names by `uuid`, exactly once: the
 * request continues to its handler with the held body and method. Every other case is a
 * clear error; the store's `takeHeld` is the single guard against a second execution.
 */
export async function restoreHeld(
  request: FastifyRequest,
  session: Session,
  fields: Record<string, unknown>,
  store: QueueStore,
): Promise<void> {
  const uuid = textField(fields, 'uuid') ?? '';
  if (!UUID.test(uuid)) throw new HttpError(400, 'bad_uuid', 'The uuid field must be a UUID.');
  const entry = await store.get(uuid);
  if (!entry) throw new HttpError(404, 'unknown_uuid', 'No held request has this uuid.');
  if (entry.sessionId !== session.id) {
    throw new HttpError(403, 'not_your_place', 'This held request belongs to another visitor.');
  }
  const held = entry.request;
  if (held.method === 'GET') {
    throw new HttpError(400, 'get_replay', 'A held GET is replayed by navigating to it, not by a form.');
  }
  const heldPath = pathOf(held.uri);
  if (heldPath === undefined || heldPath !== requestTarget(request).path) {
    throw new HttpError(400, 'replay_target_mismatch', `This held request replays at ${heldPath ?? held.uri}.`);
  }
  const method = (textField(fields, '_method') ?? 'POST').toUpperCase();
  if (method !== held.method) {
    throw new HttpError(400, 'method_mismatch', `This held request is a ${held.method}.`);
  }
  if (entry.state !== 'released') {
    throw new HttpError(409, 'not_released', 'Not released yet: keep waiting for your turn.');
  }
  const taken = entry.replayed ? undefined : await store.takeHeld(uuid, session.id);
  if (!taken) throw new HttpError(409, 'already_replayed', 'This held request was already replayed.');
  request.body = taken.body ? parseBody(taken.body.contentType, taken.body.raw) : undefined;
  request.rawBody = taken.body?.raw;
  replays.set(request, { uuid, method: taken.method, uri: taken.uri });
}

/**
 * The normalized path of a held request's `uri`, as the router reads it: the same path the
 * replay form's own target is compared by. A uri held before targets were normalized is
 * normalized here; undefined when it cannot be.
 */
function pathOf(uri: string): string | undefined {
  const result = normalizeTarget(uri);
  return result.ok ? result.path : undefined;
}
