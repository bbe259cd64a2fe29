import { eventually } from '../../support/eventually';
import { command, type SentinelSet } from '../../support/redis-topologies';

/**
 * Writes a failover loses on purpose. Replication is asynchronous: with the replica frozen and its
 * link's buffers full, what the primary writes next stays there, and dies with it.
 */
export async function cutOffReplica(sentinels: SentinelSet): Promise<void> {
  sentinels.replica.pause();
  await command(sentinels.primary.port, 'SET', 'filler', 'x'.repeat(24 * 1024 * 1024));
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
