import type { Entry, HeldRequest } from '../types';

/**
 * The held request as stored: a short JSON array, `[method, uri]`, `[method, uri, contentType,
 * raw]`, or with flags `[method, uri, contentType | null, raw | null, flags]`, where the flags
 * are letters: `b` the body is base64, `x` the request came from another site.
 */
export function encodeRequest(request: HeldRequest): string {
  const { method, uri, body, crossSite } = request;
  const flags = `${body?.encoding === 'base64' ? 'b' : ''}${crossSite ? 'x' : ''}`;
  if (flags !== '') return JSON.stringify([method, uri, body?.contentType ?? null, body?.raw ?? null, flags]);
  return JSON.stringify(body ? [method, uri, body.contentType, body.raw] : [method, uri]);
}

/** Reads a request written by `encodeRequest`. */
export function decodeRequest(stored: string): HeldRequest {
  const [method, uri, contentType, raw, flags = ''] = JSON.parse(stored) as [string, string, string?, string?, string?];
  const crossSite = flags.includes('x') ? { crossSite: true } : {};
  if (contentType === undefined || contentType === null) return { method, uri, ...crossSite };
  const encoding = flags.includes('b') ? { encoding: 'base64' as const } : {};
  return { method, uri, body: { contentType, raw: raw ?? '', ...encoding }, ...crossSite };
}

/**
 * Builds an entry from a script's reply `[uuid, request, field, value, …]` (the entry hash's
 * fields, see `lua/prelude.lua`).
 */
export function decodeEntry(reply: readonly string[]): Entry {
  const [uuid, request, ...pairs] = reply;
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) fields[pairs[i]] = pairs[i + 1];
  return entryFrom(uuid, request, fields);
}

/** Builds an entry from its hash read as an object and its stored request. */
export function entryFrom(uuid: string, request: string, fields: Readonly<Record<string, string>>): Entry {
  return {
    uuid,
    sessionId: fields.s,
    userId: Number(fields.u),
    ticket: Number(fields.t),
    request: decodeRequest(request),
    state: fields.a !== undefined ? 'released' : fields.p !== undefined ? 'pending' : 'waiting',
    heldAt: Number(fields.h),
    lastSeen: Number(fields.l),
    ...(fields.a !== undefined && { releasedAt: Number(fields.a) }),
    replayed: fields.x !== undefined,
    ...(fields.p !== undefined && { pendingUntil: Number(fields.p) }),
    ...(fields.ip !== undefined && { address: fields.ip }),
  };
}
