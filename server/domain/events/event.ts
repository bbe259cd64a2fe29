/**
 * A scheduled event of a room (drop day): a pre-queue, an opening, an end, how the line is served
 * meanwhile, and limits that replace the room's while it runs. The field names are Cloudflare's
 * (`prequeueStartTime`, `eventStartTime`, `eventEndTime`, `shuffleAtEventStart`, `queueingMethod`),
 * so that operators recognise them; the limits keep the room's own names.
 */

import { BOT_CHALLENGES, type BotChallengeMode } from '../bot-check/mode';

/**
 * How the line is served while the event runs: `fifo` in order; `random`, each release drawing
 * uniformly among those waiting; `passthrough`, everyone through at once; `reject`, nobody new
 * let in (a page says the sale is closed).
 */
export const QUEUEING_METHODS = ['fifo', 'random', 'passthrough', 'reject'] as const;
export type QueueingMethod = (typeof QUEUEING_METHODS)[number];

/** An event as kept in its room's store and answered by the admin API. Times are ISO 8601, in UTC. */
export interface DropEvent {
  /** Lower-case letters, digits and dashes; in `/events/{id}/draw`. */
  readonly id: string;
  readonly name: string;
  /** From then on every protected request of the room is held, and nobody is admitted before the opening. Null: no pre-queue. */
  readonly prequeueStartTime: string | null;
  /** The opening: the pre-queue is drawn (with `shuffleAtEventStart`) and the line moves again. */
  readonly eventStartTime: string;
  /** From then on the room's own settings are in force again. */
  readonly eventEndTime: string;
  /** Shuffle the pre-queue at the opening, by a draw anyone can verify. Needs a pre-queue. */
  readonly shuffleAtEventStart: boolean;
  readonly queueingMethod: QueueingMethod;
  /** Replace the room's while the event runs; null keeps the room's. */
  readonly activeLimit: number | null;
  readonly releasePerMinute: number | null;
  /** Replaces the room's bot check (`botChallenge`) from the pre-queue to the end; null keeps the room's. */
  readonly botChallenge: BotChallengeMode | null;
}

/** The fields an operator gives (POST, PATCH, the configuration); `id` is the server's. */
export type EventFields = Omit<DropEvent, 'id'>;

/** Where an event stands at a moment. */
export type EventPhase = 'scheduled' | 'prequeue' | 'open' | 'ended';

/** An event refused, with the error code and the message the admin API answers (400). */
export class EventError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Most minutes, ids and limits an event accepts, as the room's configuration does. */
export const MAX_LIMIT = 1_000_000;
export const EVENT_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
/**
 * Characters that steer how text is shown rather than being text: controls (a terminal's escape
 * sequences, new lines), the line and paragraph separators, and the bidirectional overrides and
 * isolates that reorder what follows. An event's name is shown in pages, the console and
 * `verify-draw`'s terminal, so it may hold none of them.
 */
export const CONTROL_CHARACTERS = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
/** ISO 8601 with a date, a time and a zone (`Z` or `±hh:mm`): a time without a zone means nothing to a server. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

export const EVENT_FIELDS = [
  'name',
  'prequeueStartTime',
  'eventStartTime',
  'eventEndTime',
  'shuffleAtEventStart',
  'queueingMethod',
  'activeLimit',
  'releasePerMinute',
  'botChallenge',
] as const;

/** An ISO 8601 time as ms since the epoch, or NaN when it is not one (with a zone). */
export function timeOf(iso: string): number {
  return ISO_TIME.test(iso) ? Date.parse(iso) : Number.NaN;
}

/** The moment the event starts to act: its pre-queue, or its opening when it has none. */
export const beginsAt = (event: EventFields): number => timeOf(event.prequeueStartTime ?? event.eventStartTime);

/** Where `event` stands at `now`. */
export function phaseOf(event: EventFields, now: number): EventPhase {
  if (now >= timeOf(event.eventEndTime)) return 'ended';
  if (now >= timeOf(event.eventStartTime)) return 'open';
  return now >= beginsAt(event) ? 'prequeue' : 'scheduled';
}

/**
 * Reads an operator's event (the configuration's, or an admin call's body merged onto the event it
 * changes), checking every field and the rules between them; throws an `EventError` naming what is
 * wrong. Times come back in UTC ISO form, absent optional fields as null, `fifo` by default.
 */
export function readEventFields(raw: unknown, path = 'the event'): EventFields {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new EventError('bad_event', `${path} must be an object.`);
  const given = raw as Record<string, unknown>;
  const unknown = Object.keys(given).find((key) => !(EVENT_FIELDS as readonly string[]).includes(key));
  if (unknown !== undefined) throw new EventError('unknown_field', `${path} has a field events do not take: "${unknown}".`);
  const name = given.name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 100 || CONTROL_CHARACTERS.test(name)) {
    throw new EventError('bad_name', `${path}: "name" must be text of 1 to 100 characters, without control characters.`);
  }
  const time = (field: 'prequeueStartTime' | 'eventStartTime' | 'eventEndTime', optional = false): string | null => {
    const value = given[field];
    if (optional && (value === undefined || value === null)) return null;
    const ms = typeof value === 'string' ? timeOf(value) : Number.NaN;
    if (Number.isNaN(ms)) {
      throw new EventError(`bad_${snake(field)}`, `${path}: "${field}" must be an ISO 8601 time with its zone, e.g. 2030-05-01T10:00:00Z.`);
    }
    return new Date(ms).toISOString();
  };
  const limit = (field: 'activeLimit' | 'releasePerMinute', min: number): number | null => {
    const value = given[field];
    if (value === undefined || value === null) return null;
    if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > MAX_LIMIT) {
      throw new EventError(`bad_${snake(field)}`, `${path}: "${field}" must be a whole number from ${min} to ${MAX_LIMIT}, or null for the room's.`);
    }
    return value as number;
  };
  const method = given.queueingMethod ?? 'fifo';
  if (!(QUEUEING_METHODS as readonly unknown[]).includes(method)) {
    throw new EventError('bad_queueing_method', `${path}: "queueingMethod" must be one of ${QUEUEING_METHODS.join(', ')}.`);
  }
  const botChallenge = given.botChallenge ?? null;
  if (botChallenge !== null && !(BOT_CHALLENGES as readonly unknown[]).includes(botChallenge)) {
    throw new EventError('bad_bot_challenge', `${path}: "botChallenge" must be one of ${BOT_CHALLENGES.join(', ')}, or null for the room's.`);
  }
  const shuffle = given.shuffleAtEventStart ?? false;
  if (typeof shuffle !== 'boolean') throw new EventError('bad_shuffle_at_event_start', `${path}: "shuffleAtEventStart" must be true or false.`);
  const event: EventFields = {
    name: name.trim(),
    prequeueStartTime: time('prequeueStartTime', true),
    eventStartTime: time('eventStartTime') as string,
    eventEndTime: time('eventEndTime') as string,
    shuffleAtEventStart: shuffle,
    queueingMethod: method as QueueingMethod,
    activeLimit: limit('activeLimit', 1),
    releasePerMinute: limit('releasePerMinute', 0),
    botChallenge: botChallenge as BotChallengeMode | null,
  };
  checkTimeline(event, path);
  return event;
}

/** The rules between an event's own fields. */
function checkTimeline(event: EventFields, path: string): void {
  const start = timeOf(event.eventStartTime);
  if (event.prequeueStartTime !== null && timeOf(event.prequeueStartTime) >= start) {
    throw new EventError('prequeue_after_start', `${path}: the opening (eventStartTime) must come after the start of the pre-queue (prequeueStartTime).`);
  }
  if (timeOf(event.eventEndTime) <= start) {
    throw new EventError('end_before_start', `${path}: the end (eventEndTime) must come after the opening (eventStartTime).`);
  }
  if (event.shuffleAtEventStart && event.prequeueStartTime === null) {
    throw new EventError('shuffle_without_prequeue', `${path}: shuffleAtEventStart draws the pre-queue: it needs a prequeueStartTime.`);
  }
}

/**
 * Refuses `event` when its time overlaps one of `others` of the same room (from its pre-queue, or
 * its opening, to its end): a room follows one event at a time.
 */
export function checkNoOverlap(event: DropEvent, others: readonly DropEvent[]): void {
  const from = beginsAt(event);
  const to = timeOf(event.eventEndTime);
  const clash = others.find((other) => other.id !== event.id && beginsAt(other) < to && from < timeOf(other.eventEndTime));
  if (clash) {
    throw new EventError('event_overlap', `The event overlaps "${clash.name}" (${clash.id}) in the same room: a room follows one event at a time.`);
  }
}

/** A name as the start of an id: lower case, words joined by dashes (at most `length` characters). */
export function slugOf(name: string, length = 64): string {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+/, '')
      .slice(0, length)
      .replace(/-+$/, '') || 'event'
  );
}

/** `prequeueStartTime` → `prequeue_start_time`, for error codes. */
const snake = (field: string): string => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
