/**
 * The draw of a scheduled event, commit then reveal, as anyone can recompute it:
 * - `commitment` = SHA-256 of the seed's 32 bytes, published from the start of the pre-queue;
 * - each entrant's `ticket` = SHA-256 of their queue uuid as text;
 * - the order = the tickets sorted ascending by HMAC-SHA256(key = the seed's bytes, message = the
 *   ticket's hex text), compared as hex (ties, which SHA-256 makes impossible in practice, by ticket).
 * Every digest is written as lowercase hex. It runs on Web Crypto, in browsers and in Node alike.
 */

/** What of Web Crypto the draw uses: in every browser and in Node 20 or later as `crypto.subtle`. */
interface Subtle {
  digest(algorithm: 'SHA-256', data: Uint8Array): Promise<ArrayBuffer>;
  importKey(format: 'raw', key: Uint8Array, algorithm: { name: 'HMAC'; hash: 'SHA-256' }, extractable: false, usages: ['sign']): Promise<unknown>;
  sign(algorithm: 'HMAC', key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
}
declare const crypto: { readonly subtle: Subtle };

/**
 * Where a waiting-room server publishes an event's draw (`DrawRecord`) and the page that verifies
 * it; `{id}` is the event's. (Here rather than with the other names: the waiting page loads it
 * only with its event view, apart from the code that shows the position.)
 */
export const EVENT_ROUTES = { draw: '/events/{id}/draw', verify: '/events/{id}/verify' } as const;

/** A digest or seed of 32 bytes, as 64 lowercase hex digits. */
export const DIGEST_PATTERN = /^[0-9a-f]{64}$/;

/** The public record of one event's draw, as `GET /events/{id}/draw` answers it (`EVENT_ROUTES.draw`). */
export interface DrawRecord {
  /** The event's id. */
  readonly event: string;
  /** The event's name and times, for the people reading it. */
  readonly name?: string;
  readonly prequeueStartTime?: string | null;
  readonly eventStartTime?: string;
  /** SHA-256 of the seed, from the start of the pre-queue. */
  readonly commitment: string;
  /** Places in the pre-queue so far; once drawn, the entrants of the draw. */
  readonly entrants: number;
  /** The seed, once the draw is done. */
  readonly seed?: string;
  /** Every entrant's ticket in draw order, once the draw is done: they went first, in this order. */
  readonly order?: readonly string[];
}

/** Why a draw does not check out: a code for a translation, the same in every client. */
export type DrawProblemCode =
  | 'bad_commitment'
  | 'commitment_changed'
  | 'not_drawn'
  | 'bad_seed'
  | 'seed_not_committed'
  | 'no_order'
  | 'bad_ticket'
  | 'ticket_twice'
  | 'order_not_drawn'
  | 'entrants_mismatch'
  | 'ticket_missing';

/**
 * One check of a draw that failed: its `code`, what it says in English (`message`, for a terminal
 * or a log), and the facts a translation of it names (`values`: `commitment`, `entrants`,
 * `order`, `ticket`), like the `{error:{code,message}}` answers of a server.
 */
export interface DrawProblem {
  readonly code: DrawProblemCode;
  readonly message: string;
  readonly values: { readonly [name: string]: string | number };
}

/** What `verifyDraw` found. */
export interface DrawVerdict {
  /** True when every check passed (and, given a uuid, its ticket is in the draw). */
  readonly ok: boolean;
  /** Each check that failed. */
  readonly problems: readonly DrawProblem[];
  readonly entrants: number;
  /** The ticket of the uuid given, or null. */
  readonly ticket: string | null;
  /** Its rank in the draw, 1 for the first drawn; null when no uuid was given or it is not in the draw. */
  readonly rank: number | null;
}

/** ASCII text as bytes: uuids (`UUID_PATTERN`) and hex digits are ASCII. */
const ascii = (text: string): Uint8Array => Uint8Array.from(text, (char) => char.charCodeAt(0));

const hex = (buffer: ArrayBuffer): string => Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, '0')).join('');

const bytesOf = (hexText: string): Uint8Array => Uint8Array.from(hexText.match(/../g) ?? [], (pair) => parseInt(pair, 16));

/** SHA-256 of the seed's 32 bytes (`seed`: 64 hex digits), as lowercase hex: the commitment. */
export async function drawCommitment(seed: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', bytesOf(seed)));
}

/** A visitor's ticket: SHA-256 of their queue uuid as text, as lowercase hex. */
export async function drawTicket(uuid: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', ascii(uuid)));
}

/** The tickets in draw order for `seed` (64 hex digits). */
export async function drawOrder(seed: string, tickets: readonly string[]): Promise<string[]> {
  const key = await crypto.subtle.importKey('raw', bytesOf(seed), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const keyed = await Promise.all(tickets.map(async (ticket) => ({ ticket, mac: hex(await crypto.subtle.sign('HMAC', key, ascii(ticket))) })));
  return keyed.sort((a, b) => compare(a.mac, b.mac) || compare(a.ticket, b.ticket)).map((each) => each.ticket);
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Checks a published draw (`record`, untrusted JSON): its shape, that the seed hashes to the
 * commitment, that the order is the tickets sorted as the algorithm says, and that the count of
 * entrants is the order's length. With `commitment` (the one the visitor saw before the opening),
 * that it is the one published; with `uuid`, that its ticket is in the draw, and its rank.
 * A record without a seed (the draw is not done yet) is not verified: `ok` is false and the
 * problem says so.
 */
export async function verifyDraw(record: unknown, options: { readonly uuid?: string; readonly commitment?: string } = {}): Promise<DrawVerdict> {
  const problems: DrawProblem[] = [];
  const problem = (code: DrawProblemCode, message: string, values: DrawProblem['values'] = {}) => problems.push({ code, message, values });
  const draw = (typeof record == 'object' && record !== null ? record : {}) as Partial<Record<keyof DrawRecord, unknown>>;
  const isDigest = (value: unknown): value is string => typeof value == 'string' && DIGEST_PATTERN.test(value);
  const order = Array.isArray(draw.order) ? draw.order : [];
  const entrants = typeof draw.entrants == 'number' ? draw.entrants : order.length;
  const ticket = options.uuid === undefined ? null : await drawTicket(options.uuid);
  const rank = ticket === null || !order.includes(ticket) ? null : order.indexOf(ticket) + 1;
  if (!isDigest(draw.commitment)) problem('bad_commitment', 'the commitment is not 64 lowercase hex digits');
  if (options.commitment !== undefined && options.commitment !== draw.commitment) {
    problem('commitment_changed', `the commitment published now is not the one seen before the opening (${options.commitment})`, {
      commitment: options.commitment,
    });
  }
  if (draw.seed === undefined) problem('not_drawn', 'the draw is not done yet: there is no seed to check');
  else if (!isDigest(draw.seed)) problem('bad_seed', 'the seed is not 64 lowercase hex digits');
  else if (isDigest(draw.commitment) && (await drawCommitment(draw.seed)) !== draw.commitment) {
    problem('seed_not_committed', 'SHA-256 of the seed is not the commitment');
  }
  if (draw.seed !== undefined && !Array.isArray(draw.order)) problem('no_order', 'the order is missing');
  else if (!order.every(isDigest)) problem('bad_ticket', 'a ticket in the order is not 64 lowercase hex digits');
  else if (new Set(order).size !== order.length) problem('ticket_twice', 'a ticket is in the order twice');
  else if (isDigest(draw.seed) && (await drawOrder(draw.seed, order)).some((each, i) => each !== order[i])) {
    problem('order_not_drawn', 'the order is not the tickets sorted by HMAC-SHA256 of the seed');
  }
  if (Array.isArray(draw.order) && entrants !== order.length)
    problem('entrants_mismatch', `${entrants} entrants are announced, the order has ${order.length}`, { entrants, order: order.length });
  if (ticket !== null && rank === null) problem('ticket_missing', `your ticket ${ticket} is not in the draw`, { ticket });
  return { ok: problems.length == 0, problems, entrants, ticket, rank };
}
