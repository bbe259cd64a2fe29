import type { ChannelMessage } from './fanout';

/** A channel event as it travels between instances, marked with the instance that sent it. */
export interface FanoutEnvelope {
  /** The sending instance's id, so that it can leave out its own messages. */
  readonly origin: string;
  readonly message: ChannelMessage;
}

/** The envelope as one pub/sub message: short keys, since every instance receives every event. */
export function encodeEnvelope({ origin, message }: FanoutEnvelope): string {
  const { channel, event, data, exceptSocketId } = message;
  return JSON.stringify({ o: origin, c: channel, e: event, d: data, ...(exceptSocketId ? { x: exceptSocketId } : {}) });
}

/**
 * Reads one pub/sub message, or returns undefined when it is not an envelope (anything else
 * published on the channel is ignored rather than sent to clients).
 */
export function decodeEnvelope(text: string): FanoutEnvelope | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { o: origin, c: channel, e: event, d: data, x: exceptSocketId } = value as Record<string, unknown>;
  const strings = [origin, channel, event, data].every((field) => typeof field === 'string');
  if (!strings || (exceptSocketId !== undefined && typeof exceptSocketId !== 'string')) return undefined;
  const message: ChannelMessage = {
    channel: channel as string,
    event: event as string,
    data: data as string,
    ...(exceptSocketId === undefined ? {} : { exceptSocketId: exceptSocketId }),
  };
  return { origin: origin as string, message };
}
