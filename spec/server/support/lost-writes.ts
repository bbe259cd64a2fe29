import Redis from 'ioredis';
import { eventually } from '../../support/eventually';
import type { SentinelSet } from '../../support/redis-topologies';

/**
 * Writes a failover loses on purpose. Replication is asynchronous: with the replica frozen and its
 * link's buffers full, what the primary writes next stays there, and dies with it.
 */
export async function cutOffReplica(sentinels: SentinelSet): Promise<void> {
  sentinels.replica.pause();
  const filler = new Redis({ port: sentinels.primary.port, host: '127.0.0.1' });
  await filler.set('filler', 'x'.repeat(24 * 1024 * 1024));
  filler.disconnect();
}

/** Resolves once the Sentinels have promoted the replica. */
export async function untilPromoted(sentinels: SentinelSet): Promise<void> {
  await eventually(
    'the replica promoted',
    () => sentinels.primaryPort(),
    (port) => port === sentinels.replica.port,
    30_000,
    200,
  );
}
