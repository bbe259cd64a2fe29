import type { ServerConfig } from '../process/config';
import { redisTargetOf, roomPrefix } from '../redis/target';
import { LocalFanout, type Fanout } from './fanout';
import { RedisFanout, type FanoutLog } from './redis-fanout';

/** How long start-up waits for the Redis subscription before listening anyway. */
export const SUBSCRIBE_WAIT_MS = 2000;

/**
 * The fanout the configuration asks for: Redis pub/sub when the queue is in Redis and the
 * embedded realtime server delivers the events, since several instances then share one
 * audience. An outside Pusher-protocol server does its own fan-out, and a single instance
 * needs none: both get the local one, and no Redis connection is made for it.
 *
 * Waits (at most `SUBSCRIBE_WAIT_MS`) until the subscription is in place, so that an instance
 * hears the others' releases from its first client on; Redis away at start only delays that.
 */
export async function createFanout(config: Pick<ServerConfig, 'redisUrl' | 'redisEngine' | 'pusher' | 'rooms'>, log: FanoutLog): Promise<Fanout> {
  const target = redisTargetOf(config);
  if (target === undefined || !config.pusher.embedded) return new LocalFanout();
  // On a Cluster, each room's channel is sharded under its hash tag, so that its messages stay on
  // its shard; messages of no room (the HTTP events API's, the console's) go on the first room's.
  const cluster = typeof target === 'object' && target.kind === 'cluster';
  const prefix = roomPrefix({ name: config.rooms[0].name, primary: true }, cluster);
  const roomPrefixes = cluster ? new Map(config.rooms.map((room, i) => [room.name, roomPrefix({ name: room.name, primary: i === 0 }, cluster)])) : undefined;
  const fanout = new RedisFanout(target, { log, prefix, ...(roomPrefixes && { roomPrefixes }) });
  if (!(await fanout.ready(SUBSCRIBE_WAIT_MS))) {
    log.warn({ channel: fanout.channel }, "realtime fanout not subscribed yet (Redis unreachable): other instances' events will arrive once it is");
  }
  return fanout;
}
