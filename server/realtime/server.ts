import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { WebSocketServer, type ServerOptions, type WebSocket } from 'ws';
import proxyAddr from '@fastify/proxy-addr';
import { addressKey } from '../domain/bot-check/address';
import type { RealtimeLimits } from '../process/config';
import { Connection, type ChannelRegistry, type ConnectionOptions } from './connection';
import type { ChannelMessage, Fanout } from './fanout';
import { SlicedDelivery, type Delivered } from './delivery';
import { CLOSE, MAX_CLIENT_MESSAGE, PROTOCOL_VERSIONS, encode, encodeFrame, protocolError } from './protocol';
import type { AppCredentials } from './signature';

/** A listener of a server's `upgrade` event. */
export type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** The idle timeouts and the bounds on what one client may cost (`config.realtime`), and the parts it works with. */
export interface RealtimeOptions extends RealtimeLimits {
  readonly app: AppCredentials;
  readonly fanout: Fanout;
  readonly log: FastifyBaseLogger;
  /** Told what each event's delivery to this instance's sockets took (the benchmark's account of the fan-out). */
  readonly onDelivered?: DeliveryListener;
  /**
   * The events where only the latest of their kind matters, by a key of that kind (see
   * `DeliverOptions.latestOf`): the line's moves, whose `served` each page keeps the largest of.
   */
  readonly latestOf?: (message: ChannelMessage) => string | undefined;
}

/** Hears of each channel event once this instance has written it to all its subscribers. */
export type DeliveryListener = (message: ChannelMessage, delivered: Delivered) => void;

/**
 * How long a socket we close may take to answer our close frame before it is dropped, at
 * shutdown as at any other close: a client that does not read would otherwise hold its socket
 * and its buffered output for ws's default 30 s.
 */
const CLOSE_GRACE_MS = 1000;

/**
 * ws 8.23 takes `closeTimeout`, which @types/ws 8.18 does not declare yet. permessage-deflate
 * stays off (ws's default, said here since `Connection.sendFrame` relies on it): channel events
 * are framed once and their bytes written to every socket as they are.
 */
const WS_OPTIONS: ServerOptions & { readonly closeTimeout: number } = {
  noServer: true,
  perMessageDeflate: false,
  maxPayload: MAX_CLIENT_MESSAGE,
  closeTimeout: CLOSE_GRACE_MS,
};

/**
 * The embedded Pusher-protocol server: WebSocket connections at `/app/{key}` on the HTTP
 * server's port, and delivery of the events the fanout brings to the subscribed sockets.
 */
export class RealtimeServer implements ChannelRegistry {
  private readonly wss = new WebSocketServer(WS_OPTIONS);
  private readonly connections = new Set<Connection>();
  /** Each open connection's client address key, and how many each address holds. */
  private readonly addressOf = new Map<Connection, string>();
  private readonly perAddress = new Map<string, number>();
  /**
   * Each channel's subscribers: the connection itself while it is alone (every visitor's own
   * channel, tens of thousands of them), a set once there are several.
   */
  private readonly channels = new Map<string, Connection | Set<Connection>>();
  private readonly delivery = new SlicedDelivery();
  private readonly connectionOptions: ConnectionOptions;
  private closing = false;
  private others?: UpgradeListener;

  constructor(private readonly options: RealtimeOptions) {
    this.connectionOptions = { ...options, channels: this };
    options.fanout.onMessage((message) => this.deliver(message));
  }

  /** Open connections of this instance. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** How many channels the registry holds `socketId` in (a scan of every channel: for stats and tests). */
  subscriptionCount(socketId: string): number {
    let count = 0;
    for (const subscribers of this.channels.values()) {
      for (const connection of subscribers instanceof Set ? subscribers : [subscribers]) if (connection.id === socketId) count += 1;
    }
    return count;
  }

  /**
   * Answers WebSocket upgrades on `server` at `/app/{key}` (a 503 once closing); upgrades to
   * other paths go to `others` (the origin's WebSockets, through the gateway), or get a 404.
   */
  attach(server: Server, others?: UpgradeListener): void {
    this.others = others;
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(request, socket, head));
  }

  /**
   * Sends `message` to this instance's sockets subscribed to its channel: framed once, then
   * written a slice of sockets at a time after every event published before it (`SlicedDelivery`).
   */
  deliver(message: ChannelMessage): void {
    const subscribers = this.channels.get(message.channel);
    if (!subscribers) return;
    const frame = encodeFrame({ event: message.event, channel: message.channel, data: message.data });
    const listener = this.options.onDelivered;
    const targets = subscribers instanceof Set ? subscribers : [subscribers];
    this.delivery.deliver(frame, targets, {
      exceptSocketId: message.exceptSocketId,
      done: listener && ((delivered) => listener(message, delivered)),
      latestOf: this.options.latestOf?.(message),
    });
  }

  join(channel: string, connection: Connection): void {
    const subscribers = this.channels.get(channel);
    if (subscribers === undefined) this.channels.set(channel, connection);
    else if (subscribers instanceof Set) subscribers.add(connection);
    else if (subscribers !== connection) this.channels.set(channel, new Set([subscribers, connection]));
  }

  leave(channel: string, connection: Connection): void {
    const subscribers = this.channels.get(channel);
    if (subscribers === connection) this.channels.delete(channel);
    else if (subscribers instanceof Set) {
      subscribers.delete(connection);
      if (subscribers.size === 0) this.channels.delete(channel);
    }
  }

  closed(connection: Connection): void {
    this.connections.delete(connection);
    const address = this.addressOf.get(connection);
    if (address === undefined) return;
    this.addressOf.delete(connection);
    const left = (this.perAddress.get(address) ?? 1) - 1;
    if (left > 0) this.perAddress.set(address, left);
    else this.perAddress.delete(address);
  }

  /** Open connections of the client address `ip` (its key: IPv6 per /64). */
  connectionsOf(ip: string): number {
    return this.perAddress.get(addressKey(ip)) ?? 0;
  }

  /**
   * Refuses new connections, asks every client to reconnect (4200), then drops those that do
   * not close in time. A client told to reconnect must not land here again: refused, behind a
   * load balancer it reaches another instance.
   */
  async close(): Promise<void> {
    this.closing = true;
    for (const connection of this.connections) connection.close(CLOSE.reconnectNow, 'Server shutting down.');
    const deadline = Date.now() + CLOSE_GRACE_MS;
    while (this.connections.size > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const connection of this.connections) connection.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const match = /^\/app\/([^/]+)$/.exec(url.pathname);
    if (!match && this.others) {
      this.others(request, socket, head);
      return;
    }
    if (!match) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (this.closing) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const address = addressKey(clientAddress(request, this.options.trustProxy));
    this.wss.handleUpgrade(request, socket, head, (ws) => this.open(ws, socket, match[1], url.searchParams, address));
  }

  /** `socket` is the upgraded socket, which `ws` writes to. */
  private open(ws: WebSocket, socket: Duplex, key: string, params: URLSearchParams, address: string): void {
    // An upgrade already under way when closing started.
    if (this.closing) return ws.close(CLOSE.reconnectNow, 'Server shutting down.');
    // The protocol refuses over the socket itself: an error message, then the close code.
    if (key !== this.options.app.key) {
      return refuse(ws, CLOSE.unknownApp, 'Unknown app key.');
    }
    const version = Number(params.get('protocol'));
    if (!Number.isInteger(version) || version < PROTOCOL_VERSIONS.min || version > PROTOCOL_VERSIONS.max) {
      return refuse(ws, CLOSE.unsupportedProtocol, `Unsupported protocol version; use ${PROTOCOL_VERSIONS.max}.`);
    }
    // Full: pusher-js backs off and tries again (here, or elsewhere behind a load balancer).
    // Nothing is kept for the socket; ws drops it if the client does not answer the close.
    if (this.connections.size >= this.options.maxConnections) {
      return refuse(ws, CLOSE.overCapacity, 'Over capacity.');
    }
    // One address cannot take every slot: the others' releases still arrive at once.
    const held = this.perAddress.get(address) ?? 0;
    if (held >= this.options.maxConnectionsPerAddress) {
      return refuse(ws, CLOSE.overCapacity, 'Over capacity: too many connections from this address.');
    }
    const connection = new Connection(ws, socket, this.connectionOptions);
    this.connections.add(connection);
    this.addressOf.set(connection, address);
    this.perAddress.set(address, held + 1);
  }
}

/** Trusts every proxy in front, as Fastify's `trustProxy: true` does. */
const TRUST_ALL = () => true;
const TRUST_NONE = () => false;

/**
 * The client's address as the HTTP side reads it (`request.ip`): the socket's, or with
 * TRUST_PROXY the first of `X-Forwarded-For`, by the same library Fastify uses.
 */
function clientAddress(request: IncomingMessage, trustProxy: boolean): string {
  const addresses = proxyAddr.all(request, trustProxy ? TRUST_ALL : TRUST_NONE);
  return addresses[addresses.length - 1] ?? '';
}

function refuse(ws: WebSocket, code: number, message: string): void {
  ws.send(encode(protocolError(message, code)));
  ws.close(code, message);
}
