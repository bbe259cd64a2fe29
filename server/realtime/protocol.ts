/**
 * The Pusher Channels WebSocket protocol, version 7: close codes, message shapes and names.
 * https://pusher.com/docs/channels/library_auth_reference/pusher-websockets-protocol/
 */

import { WebSocket } from 'ws';

/** ws's frame builder (`WebSocket.Sender.frame`, ws 8), which @types/ws does not declare. */
const Sender = (WebSocket as unknown as { Sender: { frame(data: Buffer, options: FrameOptions): Buffer[] } }).Sender;

interface FrameOptions {
  readonly fin: boolean;
  readonly opcode: number;
  readonly mask: boolean;
  readonly readOnly: boolean;
  readonly rsv1: boolean;
}

/** A whole, final, unmasked, uncompressed text frame: what a server sends when permessage-deflate is off. */
const SERVER_TEXT_FRAME: FrameOptions = { fin: true, opcode: 0x1, mask: false, readOnly: false, rsv1: false };

/** Protocol versions this server speaks; pusher-js 8 asks for 7. */
export const PROTOCOL_VERSIONS = { min: 5, max: 7 } as const;

/**
 * Close and error codes: 4000–4099 refuse for good, 4100–4199 back off (pusher-js retries after
 * a second), 4200–4299 reconnect at once, 4300–4399 other errors (as a close code, pusher-js
 * gives up, as for 4000–4099).
 */
export const CLOSE = {
  unknownApp: 4001,
  unsupportedProtocol: 4007,
  unauthorized: 4009,
  /** "Over capacity": no room for the connection, or more output waiting for it than we keep. */
  overCapacity: 4100,
  reconnectNow: 4200,
  pongNotReceived: 4201,
  inactive: 4202,
  /** "Client event rejected due to rate limit": an error while the socket stays; a close when it floods. */
  rateLimited: 4301,
} as const;

/** Largest message a client may send (the protocol's 10 KB). */
export const MAX_CLIENT_MESSAGE = 10 * 1024;

/** Channel names: letters, digits and `_-=@,.;`, at most 200 characters. */
const CHANNEL_NAME = /^[A-Za-z0-9_\-=@,.;]{1,200}$/;

export type ChannelKind = 'public' | 'private' | 'presence';

/** A message as sent on the wire; `data` is a JSON string for channel events. */
export interface WireMessage {
  readonly event: string;
  readonly channel?: string;
  readonly data?: unknown;
}

/** What a client sent, once parsed: an event name and its data object. */
export interface ClientMessage {
  readonly event: string;
  readonly channel?: string;
  readonly data: Record<string, unknown>;
}

/** Encodes one message for the wire. */
export function encode(message: WireMessage): string {
  return JSON.stringify(message);
}

/**
 * Encodes one message as the WebSocket frame bytes (header and payload in one buffer) that
 * `ws.send` of its JSON would put on a server's socket: a channel event is framed once and the
 * same bytes are written to every subscriber (`Connection.sendFrame`).
 */
export function encodeFrame(message: WireMessage): Buffer {
  const [header, payload] = Sender.frame(Buffer.from(encode(message)), SERVER_TEXT_FRAME);
  return payload === undefined ? header : Buffer.concat([header, payload]);
}

/** Parses one client frame, or returns undefined when it is not a protocol message. */
export function parseClientMessage(raw: string): ClientMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { event, channel, data } = value as Record<string, unknown>;
  if (typeof event !== 'string') return undefined;
  if (channel !== undefined && typeof channel !== 'string') return undefined;
  // pusher-js sends objects; some clients double-encode them as strings.
  let fields: unknown = data ?? {};
  if (typeof fields === 'string') {
    try {
      fields = JSON.parse(fields);
    } catch {
      fields = {};
    }
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) fields = {};
  return { event, channel, data: fields as Record<string, unknown> };
}

/** The kind of a valid channel name, or undefined when the name is invalid. */
export function channelKind(name: string): ChannelKind | undefined {
  if (!CHANNEL_NAME.test(name)) return undefined;
  if (name.startsWith('private-')) return 'private';
  if (name.startsWith('presence-')) return 'presence';
  return 'public';
}

/** `pusher:connection_established`; its data is a JSON string, as the protocol has it. */
export function connectionEstablished(socketId: string, activityTimeoutSeconds: number): WireMessage {
  return {
    event: 'pusher:connection_established',
    data: JSON.stringify({ socket_id: socketId, activity_timeout: activityTimeoutSeconds }),
  };
}

/** `pusher:error`; a `code` in 4000–4299 means the server closes with that code. */
export function protocolError(message: string, code: number | null = null): WireMessage {
  return { event: 'pusher:error', data: { code, message } };
}

export function subscriptionSucceeded(channel: string): WireMessage {
  return { event: 'pusher_internal:subscription_succeeded', channel, data: '{}' };
}

/** `pusher:subscription_error` on the channel; pusher-js hands it to the channel's bindings. */
export function subscriptionError(channel: string, type: string, error: string, status: number): WireMessage {
  return { event: 'pusher:subscription_error', channel, data: { type, error, status } };
}

export const PING: WireMessage = { event: 'pusher:ping', data: {} };
export const PONG: WireMessage = { event: 'pusher:pong', data: {} };
