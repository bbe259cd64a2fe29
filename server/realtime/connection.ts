import { randomInt } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { WebSocket, type RawData } from 'ws';
import {
  CLOSE,
  PING,
  PONG,
  channelKind,
  connectionEstablished,
  encode,
  parseClientMessage,
  protocolError,
  subscriptionError,
  subscriptionSucceeded,
  type WireMessage,
} from './protocol';
import { MessageRate } from './rate-limit';
import { isValidChannelAuth, sameText, userAuth, type AppCredentials } from './signature';

/** Where a connection's subscriptions are kept, shared by all connections of the server. */
export interface ChannelRegistry {
  join(channel: string, connection: Connection): void;
  leave(channel: string, connection: Connection): void;
  /** The connection closed (after leaving its channels). */
  closed(connection: Connection): void;
}

export interface ConnectionOptions {
  readonly app: AppCredentials;
  readonly activityTimeoutSeconds: number;
  readonly pongTimeoutMs: number;
  /** Most channels this connection may be subscribed to at once. */
  readonly maxSubscriptions: number;
  /** Messages the client may send a second on average (a burst of twice that at once). */
  readonly messagesPerSecond: number;
  /** Output waiting for the client (`ws.bufferedAmount`) past which the socket is closed. */
  readonly maxBufferedBytes: number;
  readonly channels: ChannelRegistry;
  readonly log: FastifyBaseLogger;
}

/** The connection a `ws` socket belongs to, for the listeners every connection shares. */
const CONNECTION = Symbol('connection');
type OwnedSocket = WebSocket & { [CONNECTION]: Connection };

/*
 * One set of listeners for every socket (`this` is the socket), and a timer callback given its
 * connection as an argument: tens of thousands of connections then hold no closures of their own.
 */
function onMessage(this: WebSocket, raw: RawData, isBinary: boolean): void {
  (this as OwnedSocket)[CONNECTION].receive(raw, isBinary);
}
function onClose(this: WebSocket): void {
  (this as OwnedSocket)[CONNECTION].closed();
}
function onError(this: WebSocket, error: Error): void {
  (this as OwnedSocket)[CONNECTION].failed(error);
}
function checkAlive(connection: Connection): void {
  connection.checkAlive();
}
function pongMissed(connection: Connection): void {
  connection.refuse(CLOSE.pongNotReceived, 'Pong reply not received in time.');
}

/** A socket id in the protocol's `digits.digits` form. */
export function newSocketId(): string {
  return `${randomInt(1, 2 ** 31)}.${randomInt(1, 2 ** 31)}`;
}

/**
 * One client's WebSocket, speaking the protocol: the handshake, subscriptions with their
 * authorization, ping/pong, and the idle check (a ping after the activity timeout, then a
 * close with 4201 when no answer comes within the pong timeout).
 *
 * What one client may cost is bounded: `maxSubscriptions` channels (more are refused with a
 * `LimitReached` subscription error), `messagesPerSecond` messages (see `MessageRate`), and
 * `maxBufferedBytes` of output waiting for it (past that it is closed with 4100).
 *
 * A closed socket is dropped by ws once its close timeout passes without the client's answer
 * (the server sets it short): a client that does not read never reads the close frame either.
 */
export class Connection {
  readonly id = newSocketId();
  /** At most `maxSubscriptions` (a handful): an array costs less than a Set for so few. */
  private readonly subscriptions: string[] = [];
  private readonly rate: MessageRate;
  /** Restarted by every frame from the client (`refresh`: no new timer per message). */
  private readonly idleTimer: NodeJS.Timeout;
  private pongTimer?: NodeJS.Timeout;

  /**
   * @param socket the upgraded socket `ws` writes to, where `sendFrame` writes prepared frames.
   */
  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Duplex,
    private readonly options: ConnectionOptions,
  ) {
    this.rate = new MessageRate(options.messagesPerSecond, performance.now());
    this.idleTimer = setTimeout(checkAlive, options.activityTimeoutSeconds * 1000, this);
    (ws as OwnedSocket)[CONNECTION] = this;
    ws.on('message', onMessage);
    ws.on('close', onClose);
    ws.on('error', onError);
    this.send(connectionEstablished(this.id, options.activityTimeoutSeconds));
  }

  /** Sends one message of this connection's own (handshake, pong, subscription answers…). */
  send(message: WireMessage): void {
    const ws = this.ws;
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(encode(message));
    this.checkBuffered(ws);
  }

  /**
   * Sends a channel event already framed (`encodeFrame`: one framing for all subscribers of a
   * channel) by writing its bytes to the socket itself; nothing is allocated per socket.
   *
   * This keeps the order with `ws.send` because ws's Sender queues a send only while it
   * compresses or reads a Blob: the server turns permessage-deflate off (`WS_OPTIONS` in
   * server.ts) and sends no Blobs, so every `ws.send` too reaches `socket.write` at once. What is
   * written here counts in `ws.bufferedAmount` (the socket's unwritten bytes), so the bound holds.
   */
  sendFrame(frame: Buffer): void {
    const ws = this.ws;
    if (ws.readyState !== WebSocket.OPEN) return;
    this.socket.write(frame);
    this.checkBuffered(ws);
  }

  /**
   * Closes the socket with 4100 if the output waiting for the client has passed the bound: it
   * does not read, or not fast enough. The check reads two counters (ws's queue and the
   * socket's unwritten bytes): nothing is allocated, no timer set.
   */
  private checkBuffered(ws: WebSocket): void {
    if (ws.bufferedAmount > this.options.maxBufferedBytes) this.overflowed(ws.bufferedAmount);
  }

  /** Sends the protocol error, then closes with its code. */
  refuse(code: number, message: string): void {
    this.send(protocolError(message, code));
    this.ws.close(code, message);
  }

  /** Closes with `code` (4200 on shutdown: clients reconnect at once, maybe elsewhere). */
  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }

  /** Drops the socket without a closing handshake. */
  terminate(): void {
    this.ws.terminate();
  }

  get isClosed(): boolean {
    return this.ws.readyState === this.ws.CLOSED;
  }

  /** A frame from the client (the socket's `message`). */
  receive(raw: RawData, isBinary: boolean): void {
    // Frames may still come in while our close is under way: nothing more to answer.
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.stillActive();
    switch (this.rate.take(performance.now())) {
      case 'accept':
        break;
      case 'drop':
        return;
      case 'drop-and-tell':
        this.send(protocolError(`Client event rejected due to rate limit: at most ${this.options.messagesPerSecond} messages a second.`, CLOSE.rateLimited));
        return;
      case 'flood':
        this.options.log.info({ socketId: this.id }, 'realtime client flooding far past its rate limit: closed');
        this.refuse(CLOSE.rateLimited, 'Rate limit exceeded many times over; closing.');
        return;
    }
    const message = isBinary ? undefined : parseClientMessage(raw.toString());
    if (!message) {
      this.send(protocolError('Messages must be JSON objects with an "event" name.'));
      return;
    }
    switch (message.event) {
      case 'pusher:ping':
        this.send(PONG);
        return;
      case 'pusher:pong':
        return;
      case 'pusher:subscribe':
        this.subscribe(message.data);
        return;
      case 'pusher:unsubscribe':
        this.unsubscribe(message.data);
        return;
      case 'pusher:signin':
        this.signin(message.data);
        return;
      default:
        if (message.event.startsWith('client-')) {
          this.send(protocolError('Client events are not enabled on this server.'));
        }
    }
  }

  private subscribe(data: Record<string, unknown>): void {
    const channel = data.channel;
    if (typeof channel !== 'string') {
      this.send(protocolError('pusher:subscribe needs a channel name.'));
      return;
    }
    const kind = channelKind(channel);
    if (kind === undefined) {
      this.send(subscriptionError(channel, 'InvalidChannel', 'Invalid channel name.', 400));
      return;
    }
    if (kind === 'presence') {
      this.send(subscriptionError(channel, 'UnsupportedChannel', 'Presence channels are not supported.', 501));
      return;
    }
    const subscribed = this.subscriptions.includes(channel);
    if (!subscribed && this.subscriptions.length >= this.options.maxSubscriptions) {
      // soketi's `LimitReached`, with the status of "Over capacity": a slot frees on unsubscribe.
      this.send(subscriptionError(channel, 'LimitReached', `At most ${this.options.maxSubscriptions} channels per connection.`, CLOSE.overCapacity));
      return;
    }
    if (kind === 'private' && !isValidChannelAuth(this.options.app, this.id, channel, data.auth)) {
      this.send(subscriptionError(channel, 'AuthError', 'Invalid signature for this socket and channel.', 401));
      return;
    }
    if (!subscribed) {
      this.subscriptions.push(channel);
      this.options.channels.join(channel, this);
    }
    this.send(subscriptionSucceeded(channel));
  }

  private unsubscribe(data: Record<string, unknown>): void {
    const channel = data.channel;
    const index = typeof channel === 'string' ? this.subscriptions.indexOf(channel) : -1;
    if (index === -1) return;
    this.subscriptions.splice(index, 1);
    this.options.channels.leave(channel as string, this);
  }

  /** User authentication: a bad signature is an unauthorized connection (4009). */
  private signin(data: Record<string, unknown>): void {
    const { auth, user_data: userData } = data;
    if (typeof userData !== 'string' || typeof auth !== 'string' || !sameText(auth, userAuth(this.options.app, this.id, userData))) {
      this.refuse(CLOSE.unauthorized, 'Invalid signin signature.');
      return;
    }
    this.send({ event: 'pusher:signin_success', data: { user_data: userData } });
  }

  /** Restarts the idle check: any frame from the client shows it is alive. */
  private stillActive(): void {
    if (this.pongTimer !== undefined) {
      clearTimeout(this.pongTimer);
      this.pongTimer = undefined;
    }
    this.idleTimer.refresh();
  }

  /**
   * Closes with 4100 ("Over capacity": pusher-js backs off a second, then reconnects). The close
   * frame waits behind the output already buffered; no more is sent once closing.
   */
  private overflowed(bufferedBytes: number): void {
    this.options.log.info({ socketId: this.id, bufferedBytes }, 'realtime client not reading its messages: closed');
    this.ws.close(CLOSE.overCapacity, 'Over capacity: too much output waiting for this client.');
  }

  /** The activity timeout passed without a frame from the client: ping, and wait for the pong. */
  checkAlive(): void {
    this.send(PING);
    this.pongTimer = setTimeout(pongMissed, this.options.pongTimeoutMs, this);
  }

  /** The socket closed (the socket's `close`): out of every channel and the registry. */
  closed(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.pongTimer);
    for (const channel of this.subscriptions) this.options.channels.leave(channel, this);
    this.subscriptions.length = 0;
    this.options.channels.closed(this);
  }

  /** The socket failed (the socket's `error`); its `close` follows. */
  failed(error: Error): void {
    this.options.log.debug({ err: error, socketId: this.id }, 'realtime socket error');
  }
}
