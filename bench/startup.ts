/**
 * Start-up: the server as production runs it (`node dist/server.js`, built by build-server.mjs)
 * beside the way it ran before (`node --import tsx bin/server.ts`, transpiling the TypeScript at
 * every start; tsx's cache of transpiled files warm, as on any start after the first). Each is
 * started several times, alternating, with the demo shop as its origin (the default `npm start`):
 * the time from spawning the process to its first answer, the CPU time it took to get there, and
 * its memory once idle (RSS of the process and any it started, read from /proc).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ensureWaitingPageBuilt } from '../spec/support/waiting-page-built';
import { NODE_FLAGS } from '../server/process/node-flags';
import { median } from './stats';

const ROOT = path.resolve(__dirname, '..');
/** `main.ts` says where it listens in this line. */
const LISTENING = /Waiting Room in front of .*?: open (http:\/\/\S+?)\/ /;
/** How long an idle server is left before its memory is read. */
const IDLE_MS = 2000;

export interface StartupOptions {
  readonly runs: number;
  readonly log: (line: string) => void;
}

/** The two ways of starting the server. */
const WAYS = {
  compiled: [...NODE_FLAGS, 'dist/server.js'],
  tsx: ['--import', 'tsx', 'bin/server.ts'],
} as const;

type Way = keyof typeof WAYS;

interface StartSample {
  /** Spawned → the first request answered (ms). */
  readonly readyMs: number;
  /** CPU time of the process until then (ms), whatever else the machine was doing. */
  readonly cpuMs: number;
  /** RSS of the process and its children after IDLE_MS idle (bytes). */
  readonly idleRss: number;
}

export async function measureStartup(options: StartupOptions) {
  await ensureWaitingPageBuilt();
  const built = performance.now();
  // @ts-expect-error: the build script is plain JavaScript.
  const { buildServer } = (await import('../build-server.mjs')) as { buildServer: (options: { log: boolean }) => Promise<string[]> };
  await buildServer({ log: false });
  const buildMs = performance.now() - built;
  const samples: Record<Way, StartSample[]> = { compiled: [], tsx: [] };
  for (let run = 0; run < options.runs; run++) {
    // Alternating (compiled, tsx, tsx, compiled, …): a change in the machine's load hits both.
    const order: Way[] = run % 2 === 0 ? ['compiled', 'tsx'] : ['tsx', 'compiled'];
    for (const way of order) samples[way].push(await startOnce(way));
  }
  const figures = (way: Way) => ({
    command: `node ${WAYS[way].join(' ')}`,
    readyMs: round(median(samples[way].map((sample) => sample.readyMs))),
    cpuMs: round(median(samples[way].map((sample) => sample.cpuMs))),
    idleRss: median(samples[way].map((sample) => sample.idleRss)),
    samples: samples[way],
  });
  const compiled = figures('compiled');
  const tsx = figures('tsx');
  options.log(
    `  compiled: ready in ${compiled.readyMs} ms (CPU ${compiled.cpuMs} ms), idle RSS ${(compiled.idleRss / 2 ** 20).toFixed(1)} MiB; ` +
      `tsx: ready in ${tsx.readyMs} ms (CPU ${tsx.cpuMs} ms), idle RSS ${(tsx.idleRss / 2 ** 20).toFixed(1)} MiB`,
  );
  return {
    runs: options.runs,
    /** build-server.mjs, once before the runs (ms): what `npm start` adds to build the server. */
    buildMs: round(buildMs),
    compiled,
    tsx,
    ratio: {
      readyMs: round(compiled.readyMs / tsx.readyMs),
      cpuMs: round(compiled.cpuMs / tsx.cpuMs),
      idleRss: round(compiled.idleRss / tsx.idleRss),
    },
  };
}

export type StartupResult = Awaited<ReturnType<typeof measureStartup>>;

async function startOnce(way: Way): Promise<StartSample> {
  const started = performance.now();
  const child = spawn(process.execPath, [...WAYS[way]], {
    cwd: ROOT,
    env: {
      // The default `npm start`: none of the shell's server settings (a Redis, an origin) come along.
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(REDIS_URL|UPSTREAM|PUSHER_\w+|STATE_FILE|PROTECT|ROOMS(_FILE)?)$/.test(name))),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ADMIN_TOKEN: 'a-long-enough-admin-token-for-the-bench',
      SESSION_SECRET: 'a-session-secret-of-at-least-32-characters',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await listening(child);
    const answer = await fetch(`${url}/queue/info/not-a-uuid`);
    await answer.arrayBuffer();
    const readyMs = performance.now() - started;
    const cpuMs = cpuTimeMs(child.pid as number);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    return { readyMs: round(readyMs), cpuMs: round(cpuMs), idleRss: treeRss(child.pid as number) };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the server did not listen within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = LISTENING.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(url);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${output}`));
    });
  });
}

/** User and system CPU time of a process so far, in ms (from /proc/<pid>/stat). */
function cpuTimeMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** RSS of `pid` and of every process it started, in bytes. */
function treeRss(pid: number): number {
  const rss = (id: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${id}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  const children = (id: number): number[] => {
    try {
      return readdirSync(`/proc/${id}/task`).flatMap((task) =>
        readFileSync(`/proc/${id}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
      );
    } catch {
      return [];
    }
  };
  let total = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const id = queue.shift() as number;
    total += rss(id);
    queue.push(...children(id));
  }
  return total;
}

const round = (value: number) => Math.round(value * 10) / 10;
