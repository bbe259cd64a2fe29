import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { findRedisServer, freePort, launch } from './redis-server';

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
  close(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;

/** A failover the Sentinels notice within a second of the primary going, and carry out at once. */
export async function startSentinelSet(name = 'wr-test'): Promise<SentinelSet> {
  const binary = findRedisServer();
  const dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-sentinel-'));
  const children: ChildProcess[] = [];
  const killOnExit = () => children.forEach((child) => child.kill('SIGKILL'));
  process.on('exit', killOnExit);
  const start = async (extra: readonly string[], config?: string, port?: number) => {
    const chosen = port ?? (await freePort());
    const child = await launch(binary, chosen, dir, extra, config);
    children.push(child);
    return processOf(child, chosen);
  };
  try {
    const primary = await start([]);
    const replica = await start(['--replicaof', '127.0.0.1', String(primary.port)]);
    await until('the replica in sync', async () => (await info(replica.port, 'replication')).includes('master_link_status:up'));
    const sentinels: { host: string; port: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const config = path.join(dir, `sentinel-${i}.conf`);
      writeFileSync(
        config,
        [
          `sentinel monitor ${name} 127.0.0.1 ${primary.port} 2`,
          `sentinel down-after-milliseconds ${name} 1000`,
          `sentinel failover-timeout ${name} 3000`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      await start(['--sentinel'], config, port);
      sentinels.push({ host: '127.0.0.1', port });
    }
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
    return { name, sentinels, primary, replica, primaryPort, inSync, close: () => closeAll(children, dir, killOnExit) };
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
    const extraOf = (port: number) => ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '1000'];
    for (let i = 0; i < 6; i++) {
      const port = await freePort();
      const child = await launch(binary, port, dir, extraOf(port));
      children.push(child);
      nodes.push(processOf(child, port));
    }
    const restart = async (node: RedisProcess) => {
      const child = await launch(binary, node.port, dir, extraOf(node.port));
      children.push(child);
      const again = processOf(child, node.port);
      nodes[nodes.indexOf(node)] = again;
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
      const ranges = (await command(nodes.find((node) => alive(node))?.port ?? nodes[0].port, 'CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      const node = nodes.find(({ port }) => port === Number(range?.[2][1]));
      if (!node) throw new Error(`No primary serves slot ${slot}`);
      return node;
    };
    const inSync = (primary: RedisProcess) => until('the replicas to hold every write', () => replicasCaughtUp(primary.port));
    return { nodes, primaryOf, inSync, restart, close: () => closeAll(children, dir, killOnExit) };
  } catch (error) {
    await closeAll(children, dir, killOnExit);
    throw error;
  }
}

const killed = new WeakSet<RedisProcess>();
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
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
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
async function command(port: number, name: string, ...args: string[]): Promise<unknown> {
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

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`Waited ${READY_TIMEOUT_MS} ms for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
