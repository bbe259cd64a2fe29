import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A real redis-server for the tests, on a free port, keeping nothing on disk. */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** Stops the server with SIGKILL (its data is lost unless `extra` turned persistence on). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty, unless persisted) and waits until it answers. */
  start(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open, nothing is answered, data is kept. */
  pause(): void;
  /** Thaws a paused process (SIGCONT). */
  resume(): void;
  /** Stops the server and removes its directory. */
  close(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

/**
 * Starts a redis-server on a free port and waits until it answers. `extra` adds settings (e.g.
 * `--appendonly yes`: then `stop` and `start` are a crash and a restart that reads the file).
 */
export async function startRedisServer(extra: readonly string[] = []): Promise<RedisServer> {
  const binary = findRedisServer();
  const dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-redis-'));
  let port = 0;
  let child: ChildProcess | undefined;
  const killOnExit = () => child?.kill('SIGKILL');
  process.on('exit', killOnExit);

  const start = async () => {
    child = await launch(binary, port, dir, extra);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGCONT');
    running.kill('SIGKILL');
    await exited;
  };

  try {
    await withFreePorts(1, async ([free]) => {
      port = free;
      await start();
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    process.off('exit', killOnExit);
    throw error;
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
      process.off('exit', killOnExit);
    },
  };
}

/** The redis-server binary; tells how to install it when it is missing. */
export function findRedisServer(): string {
  const dirs = ['/usr/bin', ...(process.env.PATH ?? '').split(path.delimiter)];
  const found = dirs.map((dir) => path.join(dir, 'redis-server')).find((file) => existsSync(file));
  if (!found) {
    throw new Error('redis-server is not installed: run `bash .ci/system-deps` to install it, then run the tests again.');
  }
  return found;
}

/**
 * Runs `attempt` with `count` loopback ports free at the time of asking (`pick`), again with others
 * when it fails (three tries in all): another process may take a free port before redis-server
 * binds it. An attempt that fails must leave nothing running.
 */
export async function withFreePorts<T>(count: number, attempt: (ports: number[]) => Promise<T>, pick: () => Promise<number> = freePort): Promise<T> {
  for (let tries = 1; ; tries++) {
    const ports: number[] = [];
    while (ports.length < count) {
      const port = await pick();
      if (!ports.includes(port)) ports.push(port);
    }
    try {
      return await attempt(ports);
    } catch (error) {
      if (tries >= 3) throw error;
    }
  }
}

/** A loopback port free at the time of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** How far above its port a Redis Cluster node listens for the other nodes (its cluster bus). */
export const CLUSTER_BUS_OFFSET = 10_000;

/**
 * A loopback port free at the time of asking for a Redis Cluster node, whose cluster bus port
 * (`CLUSTER_BUS_OFFSET` higher, 65535 at most) is free too: a node whose bus port is taken, by
 * another test's server or by a node of another cluster, exits at start.
 */
export async function freeClusterPort(): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const held = createServer();
    const port = await new Promise<number>((resolve, reject) => {
      held.once('error', reject);
      held.listen(0, '127.0.0.1', () => resolve((held.address() as { port: number }).port));
    });
    const bus = createServer();
    const busFree =
      port + CLUSTER_BUS_OFFSET <= 65_535 &&
      (await new Promise<boolean>((resolve) => {
        bus.once('error', () => resolve(false));
        bus.listen(port + CLUSTER_BUS_OFFSET, '127.0.0.1', () => resolve(true));
      }));
    await Promise.all([new Promise((resolve) => held.close(resolve)), busFree ? new Promise((resolve) => bus.close(resolve)) : undefined]);
    if (busFree) return port;
    if (attempt >= 100) throw new Error('No loopback port with its cluster bus port free was found in 100 attempts.');
  }
}

/** The last characters of a process's log kept for failure messages. */
const OUTPUT_KEPT = 64_000;
const outputs = new WeakMap<ChildProcess, () => string>();

/** What a process `launch` started printed (its log), the last `OUTPUT_KEPT` characters. */
export function outputOf(child: ChildProcess): string {
  return outputs.get(child)?.() ?? '';
}

/**
 * Starts `binary` on `port` with `dir` as its folder, and waits until it answers as itself.
 * `extra` adds settings (a replica's, a cluster node's); `config`, a config file, comes first
 * (a Sentinel's: it writes what it learns there).
 */
export async function launch(binary: string, port: number, dir: string, extra: readonly string[] = [], config?: string): Promise<ChildProcess> {
  const args = [...(config ? [config] : []), '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  args.push('--dir', dir, '--daemonize', 'no', '--loglevel', 'warning', '--protected-mode', 'no');
  // A replica's sync starts at once: by default a primary waits 5 s for other replicas to share it.
  if (!extra.includes('--sentinel')) args.push('--repl-diskless-sync-delay', '0');
  args.push(...extra);
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-OUTPUT_KEPT));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  outputs.set(child, () => output);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  // Ask for the process id, so that another server that took the port is not mistaken for ours.
  while ((await serverPid(port)) !== child.pid) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`redis-server exited before answering on port ${port}:\n${output}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer on port ${port} within ${READY_TIMEOUT_MS} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return child;
}

/** The process id of the Redis answering on `port`, or undefined when none answers. */
function serverPid(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    let reply = '';
    const done = (pid?: number) => {
      socket.destroy();
      resolve(pid);
    };
    socket.setTimeout(500, () => done());
    socket.once('error', () => done());
    socket.once('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.startsWith('-')) done();
      const pid = /process_id:(\d+)\r\n/.exec(reply);
      if (pid) done(Number(pid[1]));
    });
  });
}
