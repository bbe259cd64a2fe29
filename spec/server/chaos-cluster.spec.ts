import { eventually } from '../support/eventually';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { startRedisCluster, startSentinelSet, type RedisCluster, type SentinelSet } from '../support/redis-topologies';
import { restartInstance, startInstance, type Instance } from '../support/scale-out';
import { stopAllServerProcesses } from '../support/server-process';
import { LIMITS, RECOVERY_GOAL_MS, Workload, type FaultKind, type Figures } from './support/chaos';
import { startTestOrigin, type TestOrigin } from './support/origin';

/**
 * Faults at random moments under a recorded workload (see support/chaos.ts), then a checker over
 * the whole history, on each Redis engine: a Cluster (its primary killed, its primary frozen past
 * the failover timeout and thawed, a gateway killed during a release; with CHAOS_SPLIT=1, a room
 * split in three parts, one part on each primary, beside the whole one), Sentinel (its primary
 * killed) and one Redis with AOF (killed and restarted). CHAOS_ROUNDS rounds of each: 1 in the
 * test command, 5 with `npm run chaos`.
 */
const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 1);
/**
 * CHAOS_SPLIT=1: a room split in three parts runs beside the whole one in the Cluster's rounds.
 * Not in the test command yet: it has gone past the admission slack and the recovery goal
 * (docs/durability.md).
 */
const SPLIT = process.env.CHAOS_SPLIT === '1';
const PREFIX = 'wr:{default}:';

jest.setTimeout(60_000 + ROUNDS * 100_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const randomMoment = () => sleep(1000 + Math.random() * 3000);

let origin: TestOrigin;
beforeAll(async () => {
  origin = await startTestOrigin();
});
afterAll(async () => {
  await stopAllServerProcesses();
  await origin?.close();
});

/** Two gateways on `env`, with the room's limits. */
async function startGateways(env: Record<string, string>): Promise<Instance[]> {
  const full = { ...env, ...LIMITS, UPSTREAM: origin.url };
  return Promise.all([startInstance(full), startInstance(full)]);
}

/**
 * The invariants every run keeps; the figures are printed for the docs. A room split in parts is
 * held to twice the goal for releases to flow again: it has taken 11.8 s (docs/durability.md).
 */
function expectInvariants(engine: string, figures: Figures, recoveryGoalMs = RECOVERY_GOAL_MS): void {
  console.log(`chaos figures (${engine}): ${JSON.stringify(figures)}`);
  expect(figures.doubles).toBe(0);
  expect(figures.acceptedTwice).toBe(0);
  expect(figures.grown).toBe(0);
  expect(figures.hung).toBe(0);
  expect(figures.unheard).toBe(0);
  expect(figures.pushed).toBeGreaterThan(0);
  expect(figures.beyondLimits).toBe(0);
  expect(figures.replays).toBeGreaterThan(0);
  for (const ms of figures.recovery) expect(ms).toBeLessThanOrEqual(recoveryGoalMs);
}

describe('chaos on a Redis Cluster: primary killed, primary frozen and thawed, gateway killed during a release', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  });
  afterAll(async () => {
    await stopAllServerProcesses();
    await cluster?.close();
  });

  it('should replay no held request twice, keep the limits, tell every release, never hang, and release again within the goal', async () => {
    const gateways = await startGateways({
      REDIS_CLUSTER_NODES: cluster.nodes.map(({ port }) => `127.0.0.1:${port}`).join(','),
      ROOMS: JSON.stringify([
        { name: 'default', protect: ['/checkout'] },
        { name: 'drop', protect: ['/drop'], parts: 3 },
      ]),
    });
    // The split room's parts lie on every primary: each fault below strikes one of its parts too.
    const workloads = [new Workload('cluster', gateways, origin)];
    if (SPLIT) workloads.push(new Workload('cluster-parts', gateways, origin, { path: '/drop', name: 'drop' }));
    const promoted = (from: number) =>
      eventually(
        'a replica promoted',
        () => cluster.primaryOf(PREFIX),
        (now) => now.port !== from,
        30_000,
        200,
      ).catch(async (error: Error) => {
        throw new Error(`${error.message}\n${await cluster.describe()}`);
      });

    const fault = (kind: FaultKind) => workloads.forEach((one) => one.fault(kind));
    const releasesFlowing = () => Promise.all(workloads.map((one) => one.releasesFlowing(() => cluster.describe())));

    for (let round = 0; round < ROUNDS; round++) {
      // A replica never synced (restarted, or demoted by a failover it did not expect) cannot be
      // elected: a fault then would test the harness, not the gateways.
      await randomMoment();
      const killed = await cluster.readyForFailover(PREFIX);
      fault('kill-primary');
      await killed.kill();
      await promoted(killed.port);
      await releasesFlowing();
      await cluster.restart(killed);

      // Frozen past the node timeout: its replica takes over; thawed, it finds itself demoted.
      await randomMoment();
      const frozen = await cluster.readyForFailover(PREFIX);
      fault('stop-primary');
      frozen.pause();
      await promoted(frozen.port);
      await sleep(500);
      frozen.resume();
      await releasesFlowing();

      // A gateway killed while an admin release it was sent is under way (and its loop's steps).
      await randomMoment();
      const index = round % 2;
      const releases = workloads.map((one) => one.releaseOn(gateways[index], 3));
      await sleep(Math.random() * 20);
      fault('kill-gateway');
      await gateways[index].process.kill();
      await Promise.all(releases);
      await releasesFlowing();
      gateways[index] = await restartInstance(gateways[index]);
    }
    await Promise.all(workloads.map((one) => one.stop()));
    expectInvariants('cluster', workloads[0].check());
    if (SPLIT) expectInvariants('cluster, a room split in three parts', workloads[1].check(), 2 * RECOVERY_GOAL_MS);
  });
});

describe('chaos on Sentinel: primary killed', () => {
  let set: SentinelSet;
  beforeAll(async () => {
    set = await startSentinelSet();
  });
  afterAll(async () => {
    await stopAllServerProcesses();
    await set?.close();
  });

  it('should keep every invariant through each failover', async () => {
    const gateways = await startGateways({
      REDIS_SENTINELS: set.sentinels.map(({ host, port }) => `${host}:${port}`).join(','),
      REDIS_SENTINEL_NAME: set.name,
    });
    const workload = new Workload('sentinel', gateways, origin);
    for (let round = 0; round < ROUNDS; round++) {
      await randomMoment();
      const primary = await set.readyForFailover();
      workload.fault('kill-sentinel-primary');
      await primary.kill();
      await workload.releasesFlowing(async () => `Sentinels name ${await set.primaryPort()}`);
      await set.restart(primary);
    }
    await workload.stop();
    expectInvariants('sentinel', workload.check());
  });
});

describe('chaos on one Redis with AOF (appendfsync everysec): killed and restarted', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer(['--appendonly', 'yes', '--appendfsync', 'everysec']);
  });
  afterAll(async () => {
    await stopAllServerProcesses();
    await redis?.close();
  });

  it('should keep every invariant and count the places a restart loses', async () => {
    const gateways = await startGateways({ REDIS_URL: redis.url });
    const workload = new Workload('aof', gateways, origin);
    for (let round = 0; round < ROUNDS; round++) {
      await randomMoment();
      workload.fault('restart-aof');
      await redis.stop();
      await redis.start();
      await workload.releasesFlowing(async () => `Redis on ${redis.port}`);
    }
    await workload.stop();
    expectInvariants('aof', workload.check());
  });
});
