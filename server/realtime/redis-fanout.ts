import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_CONNECT_WAIT_MS,
  DEFAULT_PREFIX,
  closeRedis,
  connectRedis,
  isCluster,
  readyWithin,
  type RedisClient,
  type RedisTarget,
} from '../redis/connection';
import type { ChannelMessage, Fanout } from './fanout';
import { FanoutUnavailableError } from './fanout-error';
import { decodeEnvelope, encodeEnvelope } from './fanout-message';

/** What the fanout reports: a lost or restored subscription, and messages it could not read. */
export type FanoutLog = Pick<FastifyBaseLogger, 'info' | 'warn'>;

export interface RedisFanoutOptions {
  /** Put before the pub/sub channel's name, as the store puts it before its keys (on a Cluster, with a hash tag). Default `wr:`. */
  readonly prefix?: string;
  /**
   * Each room's prefix, for a channel of its own (`<prefix>fanout`): on a Cluster, each room's
   * messages then stay on its own shard. A message of no room, or of a room not named, goes on
   * `prefix`'s channel.
   */
  readonly roomPrefixes?: ReadonlyMap<string, string>;
  /** Longest wait for one Redis reply before a publish fails, in ms. Default 1000. */
  readonly commandTimeoutMs?: number;
  /** Longest wait for the first connection (at start) before a publish fails, in ms. Default 1000. */
  readonly connectWaitMs?: number;
  /** How often the idle subscription is checked with a PING, in ms. Default 15000. */
  readonly heartbeatMs?: number;
  readonly log?: FanoutLog;
}

const DEFAULT_HEARTBEAT_MS = 15_000;
const quiet: FanoutLog = { info: () => undefined, warn: () => undefined };
const nobody = (): void => undefined;

/**
 * Carries channel events between the instances that share one Redis, over pub/sub on
 * `<prefix>fanout`: one connection publishes, another stays subscribed (a subscribed
 * connection can run no other command).
 *
 * An event is delivered to this instance's clients at once, then published for the others;
 * each instance ignores the messages marked with its own id. So this instance's clients never
 * depend on Redis: they get their events with no round trip, while Redis is away, and while
 * the subscription is being restored (delivering only through the subscription would lose
 * those silently). Every instance, this one included, delivers each event exactly once.
 *
 * On a Redis Cluster the channel is sharded (`SPUBLISH`/`SSUBSCRIBE`, Redis 7): its messages stay
 * on the shard of its hash tag instead of being copied to every node, and ioredis moves the
 * subscription to the shard's new primary after a failover.
 *
 * When Redis is unreachable or too slow, `publish` rejects with `FanoutUnavailableError`
 * within about `commandTimeoutMs` (after the local delivery). A publish that timed out on a
 * frozen Redis may still reach the others once it thaws: a release event arriving late is
 * harmless, since the page replays once. The subscription comes back by itself once Redis
 * answers again; a heartbeat also notices a connection dropped without a word (a NAT or
 * proxy forgetting an idle connection), which would otherwise silently stop the events.
 */
export class RedisFanout implements Fanout {
  /** The pub/sub channel of messages of no room in particular. */
  readonly channel: string;
  /** Every channel this instance listens on: `channel`, and each room's. */
  readonly channels: readonly string[];
  private readonly roomChannels = new Map<string, string>();
  /** This process's mark on what it publishes: a restarted process is a new origin. */
  private readonly origin = randomUUID();
  private readonly publisher: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly sharded: boolean;
  private readonly connectWaitMs: number;
  private readonly log: FanoutLog;
  private deliver: (message: ChannelMessage) => void = nobody;
  private subscribed = false;
  private everSubscribed = false;
  private readonly waiters = new Set<() => void>();
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;

  constructor(target: RedisTarget, options: RedisFanoutOptions = {}) {
    const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.channel = `${options.prefix ?? DEFAULT_PREFIX}fanout`;
    for (const [room, prefix] of options.roomPrefixes ?? []) this.roomChannels.set(room, `${prefix}fanout`);
    this.channels = [...new Set([this.channel, ...this.roomChannels.values()])];
    this.connectWaitMs = options.connectWaitMs ?? DEFAULT_CONNECT_WAIT_MS;
    this.log = options.log ?? quiet;
    this.publisher = connectRedis(target, { commandTimeoutMs });
    // Subscribing on every `ready` covers a first SUBSCRIBE that failed (Redis away at start) too.
    this.subscriber = connectRedis(target, { commandTimeoutMs, subscriber: true });
    this.sharded = isCluster(this.subscriber);
    this.subscriber.on('ready', () => this.subscribe());
    this.subscriber.on('close', () => this.lost());
    this.subscriber.on(this.sharded ? 'smessage' : 'message', (channel: string, text: string) => this.receive(channel, text));
    this.heartbeat = setInterval(() => this.checkSubscription(), options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  async publish(message: ChannelMessage): Promise<void> {
    this.deliver(message);
    if (this.closed) throw new FanoutUnavailableError('The realtime fanout is closed.');
    try {
      await readyWithin(this.publisher, this.connectWaitMs);
      const envelope = encodeEnvelope({ origin: this.origin, message });
      const channel = (message.room !== undefined && this.roomChannels.get(message.room)) || this.channel;
      await (this.sharded ? this.publisher.spublish(channel, envelope) : this.publisher.publish(channel, envelope));
    } catch (error) {
      throw new FanoutUnavailableError(`The event reached this instance's clients only; Redis is unreachable: ${(error as Error).message}`, { cause: error });
    }
  }

  onMessage(deliver: (message: ChannelMessage) => void): void {
    this.deliver = deliver;
  }

  /**
   * Resolves true once the subscription is in place (other instances' events arrive), or
   * false after `timeoutMs`; the subscription keeps being tried in the background.
   */
  ready(timeoutMs: number): Promise<boolean> {
    if (this.subscribed) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(this.subscribed);
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.deliver = nobody;
    this.subscribed = false;
    for (const done of [...this.waiters]) done();
    await Promise.allSettled([closeRedis(this.publisher), closeRedis(this.subscriber)]);
  }

  private subscribe(): void {
    // One call a channel: on a Cluster each may be on another shard.
    const subscribing = this.channels.map((channel) => (this.sharded ? this.subscriber.ssubscribe(channel) : this.subscriber.subscribe(channel)));
    Promise.all(subscribing).then(
      () => {
        if (this.closed) return;
        if (this.everSubscribed) this.log.info({ channel: this.channel }, 'realtime fanout subscribed again');
        this.subscribed = true;
        this.everSubscribed = true;
        for (const done of [...this.waiters]) done();
      },
      (error: unknown) => {
        if (this.closed) return;
        this.log.warn({ err: error, channel: this.channel }, 'realtime fanout could not subscribe; reconnecting');
        // A new connection brings a new `ready`, hence a new attempt.
        this.subscriber.disconnect(true);
      },
    );
  }

  /** A PING left unanswered means the connection is gone, said so or not: start a new one. */
  private checkSubscription(): void {
    // A Cluster's PING goes to any node, not the shard's subscriber, which ioredis watches itself.
    if (!this.subscribed || this.sharded) return;
    this.subscriber.ping().catch((error: unknown) => {
      if (this.closed || !this.subscribed) return;
      this.log.warn({ err: error, channel: this.channel }, 'realtime fanout heard nothing from Redis; reconnecting');
      this.subscriber.disconnect(true);
    });
  }

  private lost(): void {
    if (!this.subscribed || this.closed) return;
    this.subscribed = false;
    this.log.warn({ channel: this.channel }, "realtime fanout lost Redis: other instances' events are missed until it is back");
  }

  private receive(channel: string, text: string): void {
    if (!this.channels.includes(channel)) return;
    const envelope = decodeEnvelope(text);
    if (!envelope) {
      this.log.warn({ channel }, 'realtime fanout ignored a message it cannot read');
      return;
    }
    if (envelope.origin !== this.origin) this.deliver(envelope.message);
  }
}
