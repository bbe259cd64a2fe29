import { CONTROL_CHARACTERS, EVENT_ID, readEventFields, type DropEvent } from '../domain/events/event';
import type { EventState } from './event-store';
import { PRIORITY_TICKET_BASE, type Entry, type HeldRequest, type LimitOverrides, type StoredMessage } from './types';

/** The events part of the memory store's state: the room's events, and where each one's draw stands. */
export interface MemoryEventsState {
  readonly version: number;
  readonly list: readonly DropEvent[];
  readonly states: readonly (readonly [id: string, state: KeptDraw])[];
}

/**
 * An event's state with its draw as the memory store places it: the keyed and placed marks, the
 * keys not placed yet (key + uuid) and the order so far. `frozen`, the entrants the version before
 * froze at the opening, is read and no longer used: the draw takes those still waiting.
 */
export type KeptDraw = EventState & {
  readonly frozen?: readonly string[];
  readonly order?: readonly string[];
  readonly keys?: readonly string[];
  readonly keysPlaced?: number;
  readonly keyedUpTo?: number;
  readonly placedUpTo?: number;
};

/**
 * The memory store's whole state as plain JSON (`MemoryStore.toState`), so that a single
 * instance restarted for a deploy loses no place: it is written at shutdown and read at start.
 */
export interface MemoryStoreState {
  /** The layout of this object; a store reads only the versions it knows. */
  readonly version: 1;
  /** Every place: waiting, and released while its admission lasts. Held requests with their bodies. */
  readonly entries: readonly Entry[];
  /** Session id → uuid of that session's place. */
  readonly sessions: readonly (readonly [sessionId: string, uuid: string])[];
  /** Session id → when its admission ends (ms). */
  readonly admitted: readonly (readonly [sessionId: string, until: number])[];
  /** Places that have left the head of the line so far. */
  readonly served: number;
  readonly nextTicket: number;
  /** Visitors released in all. */
  readonly releasedTotal: number;
  /** The latest release times (ms), newest first, for the wait estimate. */
  readonly releaseTimes: readonly number[];
  readonly paused: boolean;
  /** The operator's limits; absent in files written before they could be changed. */
  readonly limits?: LimitOverrides;
  /** The bot check's difficulty the operator set; absent: the configured one. */
  readonly challengeDifficulty?: number;
  /** The operator's message to those waiting; absent when none was ever set. */
  readonly message?: StoredMessage;
  /** The release loop's token bucket; `tokens` is null until its first refill. */
  readonly bucket: { readonly tokens: number | null; readonly at: number };
  /** The events and their draws; absent in files written before there were events. */
  readonly events?: MemoryEventsState;
  /** The revocation feed; absent in files written before there was one. */
  readonly revocations?: MemoryRevocationsState;
  /** The priority codes: counts, and each one not yet used by its hash with when it expires (ms); absent in files written before there were codes. */
  readonly codes?: MemoryCodesState;
}

export interface MemoryCodesState {
  readonly issued: number;
  readonly used: number;
  readonly list: readonly (readonly [hash: string, expiresAt: number])[];
}

/** The revocation feed: its epoch, its last sequence number, and each revoked session with its admission's end (s) and its number. */
export interface MemoryRevocationsState {
  readonly epoch: string;
  readonly sequence: number;
  readonly list: readonly (readonly [sessionId: string, expiresAt: number, sequence: number])[];
}

export const MEMORY_STATE_VERSION = 1;

/**
 * Reads a state written by `MemoryStore.toState`, checked whole before anything is used: a
 * corrupt, foreign or later file is refused with an Error that says what is wrong, so that a
 * store is never built from half a line. Returns fresh objects holding only the known fields.
 */
export function readMemoryStoreState(value: unknown): MemoryStoreState {
  const state = record(value, 'the state');
  if (state.version !== MEMORY_STATE_VERSION) {
    refuse(`version ${JSON.stringify(state.version)} is not one this server reads (${MEMORY_STATE_VERSION})`);
  }
  const entries = list(state.entries, 'entries').map((entry, i) => readEntry(entry, `entries[${i}]`));
  const nextTicket = whole(state.nextTicket, 'nextTicket', 1);
  const byUuid = new Map<string, Entry>();
  const tickets = new Set<number>();
  entries.forEach((entry, i) => {
    if (byUuid.has(entry.uuid)) refuse(`entries[${i}].uuid ${entry.uuid} is given twice`);
    byUuid.set(entry.uuid, entry);
    // A pending place has no ticket yet.
    if (entry.state === 'pending') return;
    if (tickets.has(entry.ticket)) refuse(`entries[${i}].ticket ${entry.ticket} is given twice`);
    if (entry.ticket >= nextTicket) refuse(`nextTicket ${nextTicket} is not above entries[${i}].ticket ${entry.ticket}`);
    tickets.add(entry.ticket);
  });
  const sessions = pairs(state.sessions, 'sessions', (uuid, path) => text(uuid, path));
  sessions.forEach(([sessionId, uuid], i) => {
    if (byUuid.get(uuid)?.sessionId !== sessionId) refuse(`sessions[${i}] names no place of session ${sessionId}`);
  });
  const bucket = record(state.bucket, 'bucket');
  return {
    version: MEMORY_STATE_VERSION,
    entries,
    sessions,
    admitted: pairs(state.admitted, 'admitted', (until, path) => finite(until, path)),
    served: whole(state.served, 'served', 0),
    nextTicket,
    releasedTotal: whole(state.releasedTotal, 'releasedTotal', 0),
    releaseTimes: list(state.releaseTimes, 'releaseTimes').map((time, i) => finite(time, `releaseTimes[${i}]`)),
    paused: flag(state.paused, 'paused'),
    limits: readLimits(state.limits),
    ...(state.challengeDifficulty !== undefined && { challengeDifficulty: whole(state.challengeDifficulty, 'challengeDifficulty', 1) }),
    ...(state.message !== undefined && { message: readMessage(state.message) }),
    bucket: {
      tokens: bucket.tokens === null ? null : finite(bucket.tokens, 'bucket.tokens'),
      at: finite(bucket.at, 'bucket.at'),
    },
    ...(state.events !== undefined && { events: readEvents(state.events) }),
    ...(state.revocations !== undefined && { revocations: readRevocations(state.revocations) }),
    ...(state.codes !== undefined && { codes: readCodes(state.codes) }),
  };
}

function readCodes(value: unknown): MemoryCodesState {
  const codes = record(value, 'codes');
  return {
    issued: whole(codes.issued, 'codes.issued', 0),
    used: whole(codes.used, 'codes.used', 0),
    list: pairs(codes.list, 'codes.list', (expiresAt, path) => finite(expiresAt, path)),
  };
}

function readMessage(value: unknown): StoredMessage {
  const message = record(value, 'message');
  const texts = message.texts === undefined ? undefined : record(message.texts, 'message.texts');
  return {
    version: whole(message.version, 'message.version', 0),
    ...(message.text !== undefined && { text: text(message.text, 'message.text') }),
    ...(texts && { texts: Object.fromEntries(Object.entries(texts).map(([tag, one]) => [tag, text(one, `message.texts.${tag}`)])) }),
  };
}

function readRevocations(value: unknown): MemoryRevocationsState {
  const revocations = record(value, 'revocations');
  const epoch = text(revocations.epoch, 'revocations.epoch');
  if (!/^[A-Za-z0-9-]{1,64}$/.test(epoch)) refuse('revocations.epoch must be 1 to 64 letters, digits or dashes');
  const sequence = whole(revocations.sequence, 'revocations.sequence', 0);
  const kept = list(revocations.list, 'revocations.list').map((item, i) => {
    const at = `revocations.list[${i}]`;
    if (!Array.isArray(item) || item.length !== 3) refuse(`${at} must be a [session, expiresAt, sequence] triple`);
    const number = whole(item[2], `${at}[2]`, 1);
    if (number > sequence) refuse(`${at}[2] is above revocations.sequence`);
    return [text(item[0], `${at}[0]`), whole(item[1], `${at}[1]`, 0), number] as const;
  });
  return { epoch, sequence, list: kept };
}

function readEvents(value: unknown): MemoryEventsState {
  const events = record(value, 'events');
  const kept = list(events.list, 'events.list').map((raw, i) => {
    const { id, ...fields } = record(raw, `events.list[${i}]`);
    if (typeof id !== 'string' || !EVENT_ID.test(id)) refuse(`events.list[${i}].id is not an event id`);
    // A name saved before names refused control characters is kept, each one shown as a space:
    // refusing it would refuse the whole line the file keeps.
    const name = typeof fields.name === 'string' ? fields.name.replace(new RegExp(CONTROL_CHARACTERS.source, 'gu'), ' ') : fields.name;
    try {
      return { id, ...readEventFields({ ...fields, name }, `events.list[${i}]`) };
    } catch (error) {
      return refuse((error as Error).message.replace(/\.$/, ''));
    }
  });
  const states = list(events.states, 'events.states').map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) refuse(`events.states[${i}] must be an [id, state] pair`);
    const at = `events.states[${i}][1]`;
    const state = record(pair[1], at);
    const optional = <T>(field: string, read: (value: unknown, path: string) => T) =>
      state[field] === undefined ? {} : { [field]: read(state[field], `${at}.${field}`) };
    return [
      text(pair[0], `events.states[${i}][0]`),
      {
        ...optional('seed', (seed, path) => (/^[0-9a-f]{64}$/.test(text(seed, path)) ? seed : refuse(`${path} must be 64 hex digits`))),
        ...optional('afterTicket', (ticket, path) => whole(ticket, path, 0)),
        ...optional('openTicket', (ticket, path) => whole(ticket, path, 0)),
        ...optional('drawn', flag),
        ...optional('announced', flag),
        ...optional('frozen', (frozen, path) => list(frozen, path).map((uuid, j) => text(uuid, `${path}[${j}]`))),
        ...optional('order', (order, path) => list(order, path).map((uuid, j) => text(uuid, `${path}[${j}]`))),
        ...optional('keys', (keys, path) => list(keys, path).map((key, j) => text(key, `${path}[${j}]`))),
        ...optional('keysPlaced', (count, path) => whole(count, path, 0)),
        ...optional('keyedUpTo', (ticket, path) => whole(ticket, path, 0)),
        ...optional('placedUpTo', (ticket, path) => whole(ticket, path, 0)),
      },
    ] as const;
  });
  return { version: whole(events.version, 'events.version', 0), list: kept, states };
}

function readLimits(value: unknown): LimitOverrides {
  if (value === undefined) return {};
  const limits = record(value, 'limits');
  return {
    ...(limits.activeLimit !== undefined && { activeLimit: whole(limits.activeLimit, 'limits.activeLimit', 1) }),
    ...(limits.perMinute !== undefined && { perMinute: whole(limits.perMinute, 'limits.perMinute', 0) }),
  };
}

function readEntry(value: unknown, path: string): Entry {
  const entry = record(value, path);
  const state = entry.state;
  if (state !== 'pending' && state !== 'waiting' && state !== 'released') {
    refuse(`${path}.state must be "pending", "waiting" or "released"`);
  }
  const replayed = flag(entry.replayed, `${path}.replayed`);
  if (state !== 'released' && (entry.releasedAt !== undefined || replayed)) {
    refuse(`${path} waits, yet has a releasedAt or a replay`);
  }
  return {
    uuid: text(entry.uuid, `${path}.uuid`),
    sessionId: text(entry.sessionId, `${path}.sessionId`),
    userId: whole(entry.userId, `${path}.userId`, 0),
    ticket: state === 'pending' ? 0 : ticketOf(entry.ticket, `${path}.ticket`),
    request: readRequest(entry.request, `${path}.request`),
    state,
    heldAt: finite(entry.heldAt, `${path}.heldAt`),
    lastSeen: finite(entry.lastSeen, `${path}.lastSeen`),
    ...(state === 'released' && { releasedAt: finite(entry.releasedAt, `${path}.releasedAt`) }),
    replayed,
    ...(state === 'pending' && { pendingUntil: finite(entry.pendingUntil, `${path}.pendingUntil`) }),
    ...(state !== 'released' && entry.address !== undefined && { address: text(entry.address, `${path}.address`) }),
  };
}

function readRequest(value: unknown, path: string): HeldRequest {
  const request = record(value, path);
  const method = text(request.method, `${path}.method`);
  const uri = text(request.uri, `${path}.uri`);
  const crossSite = request.crossSite === true ? { crossSite: true } : {};
  if (request.body === undefined) return { method, uri, ...crossSite };
  const body = record(request.body, `${path}.body`);
  const encoding = body.encoding === 'base64' ? { encoding: 'base64' as const } : {};
  return {
    method,
    uri,
    body: {
      contentType: text(body.contentType, `${path}.body.contentType`, true),
      raw: text(body.raw, `${path}.body.raw`, true),
      ...encoding,
    },
    ...crossSite,
  };
}

/** A list of [session id, value] pairs, each session once. */
function pairs<T>(value: unknown, path: string, read: (value: unknown, path: string) => T): (readonly [string, T])[] {
  const seen = new Set<string>();
  return list(value, path).map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) refuse(`${path}[${i}] must be a [session id, value] pair`);
    const sessionId = text(pair[0], `${path}[${i}][0]`);
    if (seen.has(sessionId)) refuse(`${path}[${i}] names session ${sessionId} twice`);
    seen.add(sessionId);
    return [sessionId, read(pair[1], `${path}[${i}][1]`)] as const;
  });
}

function record(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse(`${path} is not an object`);
  return value as Record<string, unknown>;
}

function list(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) refuse(`${path} must be a list`);
  return value as unknown[];
}

function text(value: unknown, path: string, emptyAllowed = false): string {
  if (typeof value !== 'string' || (!emptyAllowed && value === '')) refuse(`${path} must be ${emptyAllowed ? 'text' : 'non-empty text'}`);
  return value;
}

function finite(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) refuse(`${path} must be a number`);
  return value;
}

function whole(value: unknown, path: string, min: number): number {
  if (!Number.isSafeInteger(value) || (value as number) < min) refuse(`${path} must be a whole number of at least ${min}`);
  return value as number;
}

function flag(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') refuse(`${path} must be true or false`);
  return value;
}

function refuse(why: string): never {
  throw new Error(`Refused the memory store state: ${why}.`);
}

/** A ticket in line: 1 and up, or a code holder's (`PRIORITY_TICKET_BASE` up, below 0). */
function ticketOf(value: unknown, path: string): number {
  const ticket = whole(value, path, PRIORITY_TICKET_BASE + 1);
  if (ticket === 0) refuse(`${path} must not be 0 for a place in line`);
  return ticket;
}
