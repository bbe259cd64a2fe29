import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { findRedisServer, freeClusterPort, launch, outputOf, withFreePorts } from './redis-server';

/**
 * Real Redis topologies for the tests, on loopback ports: a primary with a replica watched by
 * three Sentinels, and a Redis Cluster of three primaries with a replica each. Nothing is kept on
 * disk beyond their temporary folder.
 */

/** One redis-server process of a topology. */
export interface RedisProcess {
  readonly port: number;
  readonly pid: number;
  /** `kill -9`: gone at once, with whatever it had not passed on. */
  kill(): Promise<void>;
  /** SIGSTOP: connections stay open, nothing is answered. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** What it logged (the last part), for failure messages. */
  output(): string;
}

export interface SentinelSet {
  /** The name the Sentinels monitor the primary by. */
  readonly name: string;
  /** The Sentinels, for REDIS_SENTINELS. */
  readonly sentinels: readonly { host: string; port: number }[];
  readonly primary: RedisProcess;
  readonly replica: RedisProcess;
  /** The port of the primary the Sentinels name now. */
  primaryPort(): Promise<number>;
  /** Resolves once the replica holds every write the primary has (asynchronous replication). */
  inSync(): Promise<void>;
  /**
   * The primary the Sentinels name, once a failover of it can take place: every Sentinel sees
   * it ok with one replica and the other Sentinels, and that replica's link is up and current.
   */
  readyForFailover(): Promise<RedisProcess>;
  /** Starts a killed node again on its port, as a replica of the current primary. */
  restart(node: RedisProcess): Promise<RedisProcess>;
  close(): Promise<void>;
}

export interface RedisCluster {
  /** Every node, for REDIS_CLUSTER_NODES. */
  readonly nodes: readonly RedisProcess[];
  /** The node serving `key`'s slot as primary now. */
  primaryOf(key: string): Promise<RedisProcess>;
  /** Resolves once the replicas of the primary on `port` hold every write it has. */
  inSync(primary: RedisProcess): Promise<void>;
  /** Starts a killed node again on its port, with its cluster file: it comes back as a replica. */
  restart(node: RedisProcess): Promise<RedisProcess>;
  /**
   * The primary serving `key`'s slot, once a failover of it can take place: every live node says
   * the cluster is ok and flags no live node as failing, and a replica of it is online, its link
   * up, no sync under way, and current. A replica that has not finished a sync since it started
   * or was demoted cannot be elected ("Disconnected from master for longer than allowed").
   */
  readyForFailover(key: string): Promise<RedisProcess>;
  /** Every live node's CLUSTER NODES and replication state, and every node's log: why a failover did not come. */
  describe(): Promise<string>;
  close(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;
/**
 * A cluster node silent this long is failing; its replica is promoted some time after. At 1000
 * a node starved of CPU for a second on a loaded machine was failed over by mistake, leaving a
 * shard whose replica was still syncing when the next fault came.
 */
export const CLUSTER_NODE_TIMEOUT_MS = 2000;

/** A failover the Sentinels notice within a second of the primary going, and carry out at once. */
export async function startSentinelSet(name = 'wr-test'): Promise<SentinelSet> {
  const binary = findRedisServer();
  const dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-sentinel-'));
  const children: ChildProcess[] = [];
  const killOnExit = () => children.forEach((child) => child.kill('SIGKILL'));
  process.on('exit', killOnExit);
  const start = async (extra: readonly string[], config: string | undefined, port: number) => {
    const child = await launch(binary, port, dir, extra, config);
    children.push(child);
    return processOf(child, port);
  };
  const stopAll = (started: readonly ChildProcess[]) =>
    Promise.all(
      started.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }),
    );
  try {
    const primary = await withFreePorts(1, ([port]) => start([], undefined, port));
    const replica = await withFreePorts(1, ([port]) => start(['--replicaof', '127.0.0.1', String(primary.port)], undefined, port));
    await until('the replica in sync', async () => (await info(replica.port, 'replication')).includes('master_link_status:up'));
    // Each Sentinel told of the replica and of the others from the start, as its own config file
    // keeps them once it has found them: finding them by itself takes seconds (hellos every 2 s,
    // the primary's INFO every 10 s).
    const ids = await withFreePorts(3, async (ports) => {
      const chosen = ports.map((port) => ({ port, id: randomBytes(20).toString('hex') }));
      for (const [i, { port, id }] of chosen.entries()) {
        const config = path.join(dir, `sentinel-${i}.conf`);
        writeFileSync(
          config,
          [
            `sentinel myid ${id}`,
            `sentinel monitor ${name} 127.0.0.1 ${primary.port} 2`,
            `sentinel down-after-milliseconds ${name} 1000`,
            `sentinel failover-timeout ${name} 3000`,
            `sentinel parallel-syncs ${name} 1`,
            `sentinel known-replica ${name} 127.0.0.1 ${replica.port}`,
            ...chosen.filter((other) => other.port !== port).map((other) => `sentinel known-sentinel ${name} 127.0.0.1 ${other.port} ${other.id}`),
            '',
          ].join('\n'),
        );
      }
      const before = children.length;
      const started = await Promise.allSettled(chosen.map(({ port }, i) => start(['--sentinel'], path.join(dir, `sentinel-${i}.conf`), port)));
      const failed = started.find((outcome) => outcome.status === 'rejected');
      if (failed) {
        // The others know the one that could not start by its port: all start again, elsewhere.
        await stopAll(children.splice(before));
        throw failed.reason;
      }
      return chosen;
    });
    const sentinels = ids.map(({ port }) => ({ host: '127.0.0.1', port }));
    const primaryPort = async () => {
      const client = new Redis({ port: sentinels[0].port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
      try {
        const [, port] = (await client.call('SENTINEL', 'get-master-addr-by-name', name)) as [string, string];
        return Number(port);
      } finally {
        client.disconnect();
      }
    };
    // Every Sentinel has found the replica and the others: a failover can be agreed on.
    await until('the Sentinels to know each other and the replica', async () => {
      const seen = await Promise.all(sentinels.map(({ port }) => info(port, 'sentinel')));
      return seen.every((text) => new RegExp(`name=${name},status=ok,address=[^,]+,slaves=1,sentinels=3`).test(text));
    });
    const offset = async (port: number, field: string) => Number(new RegExp(`${field}:(\\d+)`).exec(await info(port, 'replication'))?.[1] ?? -1);
    const inSync = () =>
      until(
        'the replica to hold every write',
        async () => (await offset(primary.port, 'master_repl_offset')) === (await offset(replica.port, 'slave_repl_offset')),
      );
    const nodes = [primary, replica];
    const restart = async (node: RedisProcess) => {
      const child = await launch(binary, node.port, dir, ['--replicaof', '127.0.0.1', String(await primaryPort())]);
      children.push(child);
      const again = processOf(child, node.port);
      nodes[nodes.indexOf(node)] = again;
      return again;
    };
    const describe = async () =>
      [
        ...(await Promise.all(sentinels.map(async ({ port }) => `--- Sentinel ${port}:\n${(await info(port, 'sentinel')).trim()}`))),
        ...(await Promise.all(nodes.map(async (node) => `--- INFO replication on ${node.port}:\n${(await info(node.port, 'replication')).trim()}`))),
      ].join('\n');
    const readyForFailover = async () => {
      let current: RedisProcess | undefined;
      await until(
        'the Sentinels and a replica ready for a failover',
        async () => {
          const port = await primaryPort();
          current = nodes.find((node) => node.port === port);
          const other = nodes.find((node) => node.port !== port);
          if (!current || !other || !alive(other)) return false;
          const seen = await Promise.all(sentinels.map(({ port: sentinel }) => info(sentinel, 'sentinel')));
          if (!seen.every((text) => new RegExp(`name=${name},status=ok,address=[^,]+:${port},slaves=1,sentinels=3`).test(text))) return false;
          const fields = await infoFields(other.port, 'replication');
          return fields.master_link_status === 'up' && fields.master_sync_in_progress === '0' && (await replicaCurrent(port, other.port));
        },
        describe,
      );
      return current!;
    };
    return {
      name,
      sentinels,
      primary,
      replica,
      primaryPort,
      inSync,
      readyForFailover,
      restart,
      close: () => closeAll(children, dir, killOnExit),
    };
  } catch (error) {
    await closeAll(children, dir, killOnExit);
    throw error;
  }
}

/** Three primaries with a replica each, made by `redis-cli --cluster create`; a node is failed over after a second. */
export async function startRedisCluster(): Promise<RedisCluster> {
  const binary = findRedisServer();
  const dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-cluster-'));
  const children: ChildProcess[] = [];
  const killOnExit = () => children.forEach((child) => child.kill('SIGKILL'));
  process.on('exit', killOnExit);
  try {
    const nodes: RedisProcess[] = [];
    /** Every node started, killed ones too: their logs say what they saw last. */
    const started: RedisProcess[] = [];
    const extraOf = (port: number) => [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      `nodes-${port}.conf`,
      '--cluster-node-timeout',
      String(CLUSTER_NODE_TIMEOUT_MS),
      // Failovers, elections and syncs are logged at notice: the story of a failover that did not come.
      '--loglevel',
      'notice',
    ];
    for (let i = 0; i < 6; i++) {
      const [port, child] = await withFreePorts(1, async ([free]) => [free, await launch(binary, free, dir, extraOf(free))] as const, freeClusterPort);
      children.push(child);
      nodes.push(processOf(child, port));
      started.push(nodes[i]);
    }
    const restart = async (node: RedisProcess) => {
      const child = await launch(binary, node.port, dir, extraOf(node.port));
      children.push(child);
      const again = processOf(child, node.port);
      nodes[nodes.indexOf(node)] = again;
      started.push(again);
      return again;
    };
    const addresses = nodes.map(({ port }) => `127.0.0.1:${port}`);
    await promisify(execFile)(path.join(path.dirname(binary), 'redis-cli'), ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'], {
      timeout: READY_TIMEOUT_MS,
    });
    await until('every node to see the cluster ok', async () => {
      const states = await Promise.all(nodes.map(({ port }) => command(port, 'CLUSTER', 'INFO')));
      return states.every((text) => String(text).includes('cluster_state:ok'));
    });
    const primaryOf = async (key: string) => {
      const slot = Number(await command(nodes[0].port, 'CLUSTER', 'KEYSLOT', key));
      const asked = nodes.find((node) => alive(node) && !frozen.has(node))?.port ?? nodes[0].port;
      const ranges = (await command(asked, 'CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      const node = nodes.find(({ port }) => port === Number(range?.[2][1]));
      if (!node) throw new Error(`No primary serves slot ${slot}`);
      return node;
    };
    const describe = () =>
      describeCluster(
        nodes.filter((node) => alive(node) && !frozen.has(node)),
        started,
      );
    const inSync = (primary: RedisProcess) => until('the replicas to hold every write', () => replicasCaughtUp(primary.port), describe);
    const readyForFailover = async (key: string) => {
      let primary: RedisProcess | undefined;
      await until(
        `a replica of ${key}'s primary ready to take over`,
        async () => failoverPossible((primary = await primaryOf(key)), nodes.filter(alive)),
        describe,
      );
      return primary!;
    };
    return { nodes, primaryOf, inSync, restart, readyForFailover, describe, close: () => closeAll(children, dir, killOnExit) };
  } catch (error) {
    await closeAll(children, dir, killOnExit);
    throw error;
  }
}

const killed = new WeakSet<RedisProcess>();
const frozen = new WeakSet<RedisProcess>();
const alive = (node: RedisProcess) => !killed.has(node);

function processOf(child: ChildProcess, port: number): RedisProcess {
  const node: RedisProcess = {
    port,
    pid: child.pid ?? 0,
    kill: () =>
      new Promise<void>((resolve) => {
        killed.add(node);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
    pause: () => {
      frozen.add(node);
      child.kill('SIGSTOP');
    },
    resume: () => {
      frozen.delete(node);
      child.kill('SIGCONT');
    },
    output: () => outputOf(child),
  };
  return node;
}

async function closeAll(children: ChildProcess[], dir: string, killOnExit: () => void): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGCONT');
          child.kill('SIGKILL');
        }),
    ),
  );
  rmSync(dir, { recursive: true, force: true });
  process.off('exit', killOnExit);
}

/** One command to the process on `port`, on a connection of its own. */
export async function command(port: number, name: string, ...args: string[]): Promise<unknown> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, commandTimeout: 2000 });
  client.on('error', () => undefined);
  try {
    return await client.call(name, ...args);
  } finally {
    client.disconnect();
  }
}

async function info(port: number, section: string): Promise<string> {
  try {
    return String(await command(port, 'INFO', section));
  } catch {
    return '';
  }
}

/** Whether every replica of the primary on `port` is online and has acknowledged all it was sent. */
async function replicasCaughtUp(port: number): Promise<boolean> {
  const text = await info(port, 'replication');
  const offset = /master_repl_offset:(\d+)/.exec(text)?.[1];
  const replicas = [...text.matchAll(/slave\d+:.*state=(\w+),offset=(\d+)/g)];
  return replicas.length > 0 && replicas.every(([, state, at]) => state === 'online' && at === offset);
}

/** Polls `check` until it holds; after `READY_TIMEOUT_MS` fails, with what `describe` tells of the topology. */
async function until(what: string, check: () => Promise<boolean>, describe?: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) {
      throw new Error(`Waited ${READY_TIMEOUT_MS} ms for ${what}.${describe ? `\n${await describe()}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The fields of INFO's `section` on `port`, by name ({} when it does not answer). */
async function infoFields(port: number, section: string): Promise<Record<string, string>> {
  const fields: Record<string, string> = {};
  for (const line of (await info(port, section)).split('\r\n')) {
    const [, name, value] = /^(\w+):(.*)$/.exec(line) ?? [];
    if (name) fields[name] = value;
  }
  return fields;
}

/** One line of CLUSTER NODES: id, port, flags and whose replica it is. */
interface NodeLine {
  readonly id: string;
  readonly port: number;
  readonly flags: readonly string[];
  readonly primaryId: string;
}

async function clusterNodes(port: number): Promise<NodeLine[]> {
  const text = String(await command(port, 'CLUSTER', 'NODES'));
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, primaryId] = line.split(' ');
      return { id, port: Number(/:(\d+)@/.exec(address)?.[1]), flags: flags.split(','), primaryId };
    });
}

/** Whether a failover of `primary` can be carried out now (see `RedisCluster.readyForFailover`). */
async function failoverPossible(primary: RedisProcess, live: readonly RedisProcess[]): Promise<boolean> {
  for (const node of live) {
    if (!String(await command(node.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
    const seen = await clusterNodes(node.port);
    const livePorts = new Set(live.map(({ port }) => port));
    if (seen.some((line) => livePorts.has(line.port) && line.flags.some((flag) => flag === 'fail' || flag === 'fail?'))) return false;
  }
  const self = (await clusterNodes(primary.port)).find((line) => line.flags.includes('myself'));
  if (!self?.flags.includes('master')) return false;
  const replicas = (await clusterNodes(primary.port)).filter((line) => line.primaryId === self.id && !line.flags.includes('fail'));
  for (const replica of replicas) {
    const fields = await infoFields(replica.port, 'replication');
    if (fields.master_link_status === 'up' && fields.master_sync_in_progress === '0' && (await replicaCurrent(primary.port, replica.port))) return true;
  }
  return false;
}

/**
 * Whether the primary on `port` sees its replica on `replicaPort` online and acknowledging within
 * the last second (replicas acknowledge once a second, so under writes an offset is rarely equal).
 */
async function replicaCurrent(port: number, replicaPort: number): Promise<boolean> {
  const line = new RegExp(`slave\\d+:ip=[^,]+,port=${replicaPort},state=(\\w+),offset=\\d+,lag=(\\d+)`).exec(await info(port, 'replication'));
  return line?.[1] === 'online' && Number(line[2]) <= 1;
}

/** Each live node's view of the cluster and its replication state, then each node's log. */
async function describeCluster(live: readonly RedisProcess[], started: readonly RedisProcess[]): Promise<string> {
  const views = await Promise.all(
    live.map(async (node) => {
      const nodesText = await command(node.port, 'CLUSTER', 'NODES').catch((error: unknown) => `(no answer: ${String(error)})`);
      const replication = await info(node.port, 'replication');
      return `--- CLUSTER NODES on ${node.port} (pid ${node.pid}):\n${String(nodesText).trim()}\n--- INFO replication on ${node.port}:\n${replication.trim()}`;
    }),
  );
  const logs = started.map((node) => `--- log of ${node.port} (pid ${node.pid}${alive(node) ? '' : ', killed'}):\n${node.output().trim()}`);
  return [...views, ...logs].join('\n');
}
