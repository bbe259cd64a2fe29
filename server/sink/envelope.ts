/** One item of a Sentry envelope: its header and its payload bytes. */
export interface EnvelopeItem {
  readonly header: Record<string, unknown>;
  readonly payload: Buffer;
}

/** What a reported event says, reduced to what the admin API shows. */
export interface ReportedEvent {
  readonly message: string;
  readonly level: string;
  readonly release: string | null;
}

/** The envelope is not in the Sentry envelope format. */
export class EnvelopeError extends Error {}

const NEWLINE = 0x0a;

/**
 * Splits a Sentry envelope: a JSON header line, then items, each a JSON header line and a
 * payload of `length` bytes (or up to the next newline when the header gives no length).
 * https://develop.sentry.dev/sdk/data-model/envelopes/
 */
export function parseEnvelope(body: Buffer): EnvelopeItem[] {
  let offset = 0;
  const line = (): Buffer => {
    const end = body.indexOf(NEWLINE, offset);
    const slice = body.subarray(offset, end === -1 ? body.length : end);
    offset = end === -1 ? body.length : end + 1;
    return slice;
  };
  jsonObject(line(), 'envelope header');
  const items: EnvelopeItem[] = [];
  while (offset < body.length) {
    const headerLine = line();
    if (headerLine.length === 0) continue;
    const header = jsonObject(headerLine, 'item header');
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

/** The events of an envelope (`event` items), as messages with their level and release. */
export function reportedEvents(items: readonly EnvelopeItem[]): ReportedEvent[] {
  return items
    .filter((item) => item.header.type === 'event')
    .map((item) => {
      const event = jsonObject(item.payload, 'event');
      return {
        message: messageOf(event),
        level: typeof event.level === 'string' ? event.level : 'error',
        release: typeof event.release === 'string' ? event.release : null,
      };
    });
}

/** `captureMessage` puts the text in `message`; `captureException` in the last exception value. */
function messageOf(event: Record<string, unknown>): string {
  const { message, logentry, exception } = event as {
    message?: unknown;
    logentry?: { formatted?: unknown; message?: unknown };
    exception?: { values?: Array<{ type?: unknown; value?: unknown }> };
  };
  if (typeof message === 'string') return message;
  for (const candidate of [logentry?.formatted, logentry?.message]) {
    if (typeof candidate === 'string') return candidate;
  }
  const last = exception?.values?.at(-1);
  if (last) {
    const type = typeof last.type === 'string' ? last.type : 'Error';
    return typeof last.value === 'string' ? `${type}: ${last.value}` : type;
  }
  return '(no message)';
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
