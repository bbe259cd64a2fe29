import { parse as parseForm } from 'node:querystring';
import type { FastifyRequest } from 'fastify';
import { isUuid, UNKNOWN_UUID } from '@waiting-room/streams/contract';
import { FORM } from './body';
import { HttpError } from './errors';
import { requestTarget } from './target';
import { normalizeTarget } from '../domain/request-target';
import { hasCsrfToken, type Session } from './session';
import type { Entry, HeldRequest, QueueStore } from '../store/types';

/** The fields of the page's replay form (`src/effects/replay-form.ts`), and no others. */
const REPLAY_FIELDS = new Set(['uuid', '_token', '_method']);

/**
 * The uuid a POST's body names when it has the shape of the waiting page's replay form: a form
 * of `uuid`, `_token` and optionally `_method`, nothing else. Undefined for anything else, which
 * is the origin's own business (a Laravel form has a `_token` too).
 */
export function replayFormUuid(contentType: string | undefined, body: Buffer): { uuid: string; fields: Record<string, unknown> } | undefined {
  if (!contentType?.toLowerCase().startsWith(FORM) || body.length > 1024) return undefined;
  const fields = parseForm(body.toString('utf8')) as Record<string, unknown>;
  const names = Object.keys(fields);
  if (!names.every((name) => REPLAY_FIELDS.has(name)) || !names.includes('uuid') || !names.includes('_token')) {
    return undefined;
  }
  const uuid = fields.uuid;
  return isUuid(uuid) ? { uuid, fields } : undefined;
}

/**
 * Takes the held request that the page's replay form names, exactly once, for the origin.
 * Undefined when the form carries neither this session's token nor a uuid of this session's:
 * then it was not sent by our page, and goes on as any request would. Every other case is a clear error; the store's
 * `takeHeld` is the single guard against a second replay, which never reaches the origin.
 */
export async function takeReplay(
  request: FastifyRequest,
  session: Session,
  form: { uuid: string; fields: Record<string, unknown> },
  store: QueueStore,
  room: {
    /** Gives a place its release again when a failover undid it (`Releases.releaseAgain`). */
    readonly releaseAgain: (uuid: string) => Promise<Entry | undefined>;
    /** Told of the place whose held request was taken (the room's report). */
    readonly onTaken?: (entry: Entry) => void;
  },
): Promise<HeldRequest | undefined> {
  let entry = await store.get(form.uuid);
  // The session's token, or a uuid of its own (a page opened before the visitor signed in at the
  // site carries the token of the session before): either only our page can know.
  const ours = entry !== undefined && entry.sessionId === session.id;
  if (!ours && !hasCsrfToken(session, form.fields._token)) return undefined;
  if (!entry) throw new HttpError(404, UNKNOWN_UUID, 'No held request has this uuid.');
  if (!ours) {
    throw new HttpError(403, 'not_your_place', 'This held request belongs to another visitor.');
  }
  const held = entry.request;
  if (held.method === 'GET' || held.method === 'HEAD') {
    throw new HttpError(400, 'get_replay', 'A held GET is replayed by navigating to it, not by a form.');
  }
  const heldPath = pathOf(held.uri);
  if (heldPath === undefined || heldPath !== requestTarget(request).path) {
    throw new HttpError(400, 'replay_target_mismatch', `This held request replays at ${heldPath ?? held.uri}.`);
  }
  const method = (typeof form.fields._method === 'string' ? form.fields._method : 'POST').toUpperCase();
  if (method !== held.method) {
    throw new HttpError(400, 'method_mismatch', `This held request is a ${held.method}.`);
  }
  if (entry.state === 'waiting') entry = (await room.releaseAgain(form.uuid)) ?? entry;
  if (entry.state !== 'released') {
    throw new HttpError(409, 'not_released', 'Not released yet: keep waiting for your turn.');
  }
  const taken = entry.replayed ? undefined : await store.takeHeld(form.uuid, session.id);
  if (!taken) throw new HttpError(409, 'already_replayed', 'This held request was already replayed.');
  room.onTaken?.(entry);
  return taken;
}

/**
 * The normalized path of a held request's `uri`, as the router reads it: the same path the
 * replay form's own target is compared by. Undefined when it cannot be normalized.
 */
function pathOf(uri: string): string | undefined {
  const result = normalizeTarget(uri);
  return result.ok ? result.path : undefined;
}
