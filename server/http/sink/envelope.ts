/** One item of a Sentry envelope: its header and its payload bytes. */
export interface EnvelopeItem {
  readonly header: Record<string, unknown>;
  readonly payload: Buffer;
}

/** What a reported event says, reduced to what the admin API shows (not yet cut: the error log cuts). */
export interface ReportedEvent {
  readonly message: string;
  readonly level: string;
  readonly release: string | null;
}

/** The envelope is not in the Sentry envelope format, or is past the bounds of `parseEnvelope`. */
export class EnvelopeError extends Error {}

/** Bounds on what parsing one envelope may cost. */
export interface EnvelopeLimits {
  /**
   * Most items read; an envelope with more is refused. The SDK sends one event, maybe with a few
   * attachments or a client report; blank lines where an item header is due count as items too.
   */
  readonly maxItems: number;
  /** Longest envelope or item header line, in bytes; a longer one is refused before it is parsed. */
  readonly maxHeaderBytes: number;
  /** Most `event` items read from one envelope: the first ones; the others are ignored, unparsed. */
  readonly maxEvents: number;
}

export const ENVELOPE_LIMITS: EnvelopeLimits = { maxItems: 100, maxHeaderBytes: 16 * 1024, maxEvents: 10 };

const NEWLINE = 0x0a;

/**
 * Splits a Sentry envelope: a JSON header line, then items, each a JSON header line and a
 * payload of `length` bytes (or up to the next newline when the header gives no length).
 * https://develop.sentry.dev/sdk/data-model/envelopes/
 *
 * Its cost is bounded whatever the body: at most `maxItems` headers of at most `maxHeaderBytes`
 * are parsed (an `EnvelopeError` past either), and payloads are only sliced, not parsed.
 */
export function parseEnvelope(body: Buffer, limits: EnvelopeLimits = ENVELOPE_LIMITS): EnvelopeItem[] {
  let offset = 0;
  const line = (): Buffer => {
    const end = body.indexOf(NEWLINE, offset);
    const slice = body.subarray(offset, end === -1 ? body.length : end);
    offset = end === -1 ? body.length : end + 1;
    return slice;
  };
  const headerLine = (what: string): Buffer => {
    const bytes = line();
    if (bytes.length > limits.maxHeaderBytes) {
      throw new EnvelopeError(`The ${what} is longer than ${limits.maxHeaderBytes} bytes.`);
    }
    return bytes;
  };
  jsonObject(headerLine('envelope header'), 'envelope header');
  const items: EnvelopeItem[] = [];
  let read = 0;
  while (offset < body.length) {
    if (++read > limits.maxItems) {
      throw new EnvelopeError(`An envelope may carry at most ${limits.maxItems} items.`);
    }
    const itemHeader = headerLine('item header');
    if (itemHeader.length === 0) continue;
    const header = jsonObject(itemHeader, 'item header');
    let payload: Buffer;
    if (typeof header.length === 'number') {
      if (!Number.isInteger(header.length) || header.length < 0 || offset + header.length > body.length) {
        throw new EnvelopeError('An item length runs past the end of the envelope.');
      }
      payload = body.subarray(offset, offset + header.length);
      offset += header.length;
      if (body[offset] === NEWLINE) offset++;
    } else {
      payload = line();
    }
    items.push({ header, payload });
  }
  return items;
}

/**
 * The events of an envelope (`event` items), as messages with their level and release: the
 * first `maxEvents` only (the others are not parsed).
 */
export function reportedEvents(items: readonly EnvelopeItem[], maxEvents = ENVELOPE_LIMITS.maxEvents): ReportedEvent[] {
  return items
    .filter((item) => item.header.type === 'event')
    .slice(0, maxEvents)
    .map((item) => {
      const event = jsonObject(item.payload, 'event');
      return {
        message: messageOf(event),
        level: typeof event.level === 'string' ? event.level : 'error',
        release: typeof event.release === 'string' ? event.release : null,
      };
    });
}

/**
 * `captureMessage` puts the text in `message`; `captureException` in the last exception value.
 * Any shape is read without throwing: an event is the client's JSON, not the SDK's promise.
 */
function messageOf(event: Record<string, unknown>): string {
  const { message, logentry, exception } = event;
  if (typeof message === 'string') return message;
  const entry = objectOrEmpty(logentry);
  for (const candidate of [entry.formatted, entry.message]) {
    if (typeof candidate === 'string') return candidate;
  }
  const values = objectOrEmpty(exception).values;
  if (Array.isArray(values) && values.length > 0) {
    const last = objectOrEmpty(values[values.length - 1]);
    const type = typeof last.type === 'string' ? last.type : 'Error';
    return typeof last.value === 'string' ? `${type}: ${last.value}` : type;
  }
  return '(no message)';
}

function objectOrEmpty(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function jsonObject(bytes: Buffer, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new EnvelopeError(`The ${what} is not JSON.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EnvelopeError(`The ${what} is not a JSON object.`);
  }
  return value as Record<string, unknown>;
}
