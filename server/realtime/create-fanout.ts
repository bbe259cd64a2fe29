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
  // On a Cluster, the one channel is sharded under the first room's hash tag.
  const cluster = typeof target === 'object' && target.kind === 'cluster';
  const fanout = new RedisFanout(target, { log, prefix: roomPrefix({ name: config.rooms[0].name, primary: true }, cluster) });
  if (!(await fanout.ready(SUBSCRIBE_WAIT_MS))) {
    log.warn({ channel: fanout.channel }, "realtime fanout not subscribed yet (Redis unreachable): other instances' events will arrive once it is");
  }
  return fanout;
}
