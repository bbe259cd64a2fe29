/**
 * Our server as the capacity benchmark runs it (`start(loadConfig(env))`, with --expose-gc),
 * answering the orchestrator: memory after a full GC, CPU time, and `take`: what happened since the
 * last take (the event loop's delay and holds, the longest GC pause, each fan-out, release and move).
 */
import { openSync, readSync } from 'node:fs';
import path from 'node:path';
import { PerformanceObserver, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { CHANNELS } from '@waiting-room/streams/contract';
import { demoShop } from '../../demo/origin';
import { loadConfig } from '../../server/process/config';
import { start } from '../../server/process/start';
import { createStore } from '../../server/process/stores';
import type { QueueStore, Release } from '../../server/store/types';
import { serveRequests } from './ipc';

/** What the server says once it listens: where, and its process. */
export type ServerReady = { readonly url: string; readonly port: number; readonly pid: number };

/** One event's delivery to this process's sockets: `QueueMoved` keyed by its `served`, a release by its channel. */
export type FanoutRecord = [
  kind: 'moved' | 'release',
  key: number | string,
  publishedAt: number,
  lastWriteAt: number,
  sockets: number,
  writingMs: number,
  superseded: boolean,
];
/** The timer that finds the holds, and a hold: how late it fires past its period. */
const PERIOD_MS = 5;
const HOLD_MS = 20;
const epoch = (at: number) => Math.round((performance.timeOrigin + at) * 100) / 100;
/** What happened since the last `take`: holds over `HOLD_MS`, each release ([uuid, decided at]) and each line move ([served, decided at]). */
const fresh = () => ({
  holds: 0,
  longestOwnHoldMs: 0,
  gcPauseMaxMs: 0,
  fanouts: [] as FanoutRecord[],
  releases: [] as [string, number][],
  moves: [] as [number, number][],
});
export type Taken = ReturnType<typeof fresh> & { loopDelayMaxMs: number };

async function main(): Promise<void> {
  const pageDir = process.env.BENCH_PAGE_DIR;
  if (!pageDir) throw new Error('BENCH_PAGE_DIR must name the built page assets.');
  const config = { ...loadConfig(process.env), assetsDir: pageDir, pageHtmlPath: path.join(pageDir, 'waiting.html') };
  let taken = fresh();
  const record = (release: Release): Release => {
    for (const entry of release.released) taken.releases.push([entry.uuid, entry.releasedAt ?? Number.NaN]);
    // A step that tells a move owed may release nobody: it was decided now.
    if (release.moved) taken.moves.push([release.served, release.released[0]?.releasedAt ?? Date.now()]);
    return release;
  };
  const server = await start(config, {
    defaultOrigin: demoShop,
    store: watchReleases(createStore(config), record),
    onDelivered: (message, { publishedAt, lastWriteAt, sockets, writingMs, superseded }) => {
      const moved = message.channel === CHANNELS.queue && message.event === CHANNELS.movedEvent;
      const key = moved ? (JSON.parse(String(message.data)) as { served: number }).served : message.channel;
      taken.fanouts.push([moved ? 'moved' : 'release', key, epoch(publishedAt), epoch(lastWriteAt), sockets, writingMs, superseded]);
    },
  });
  const loopDelay = monitorEventLoopDelay({ resolution: PERIOD_MS });
  loopDelay.enable();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) taken.gcPauseMaxMs = Math.max(taken.gcPauseMaxMs, entry.duration);
  }).observe({ entryTypes: ['gc'] });
  // A hold's own work is the main thread's CPU time in it, at most the hold: on a shared machine
  // the process may also wait that long for a core, its loop held by nothing of its own.
  let last = performance.now();
  let lastCpu = mainThreadCpuMicros();
  setInterval(() => {
    const [now, cpu] = [performance.now(), mainThreadCpuMicros()];
    const lateMs = now - last - PERIOD_MS;
    if (lateMs > HOLD_MS) {
      taken.holds++;
      taken.longestOwnHoldMs = Math.max(taken.longestOwnHoldMs, Math.min(lateMs, (cpu - lastCpu) / 1000));
    }
    [last, lastCpu] = [now, cpu];
  }, PERIOD_MS).unref();
  serveRequests({ url: server.url, port: server.port, pid: process.pid } satisfies ServerReady, {
    memory: () => memoryAfterGc(),
    settledMemory: () => settledMemory(),
    cpu: () => process.cpuUsage(),
    take: (): Taken => {
      const figures = { ...taken, loopDelayMaxMs: loopDelay.max / 1e6 };
      loopDelay.reset();
      taken = fresh();
      return figures;
    },
    close: async () => {
      await server.close();
      setImmediate(() => process.exit(0));
    },
  });
}

/** The server's own store, its releases passed to `record` on their way out. */
function watchReleases(inner: QueueStore, record: (release: Release) => Release): QueueStore {
  return new Proxy(inner, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name);
      if (name === 'release' || name === 'releaseDue')
        return async (...args: unknown[]) => record(await (value as (...args: unknown[]) => Promise<Release>).apply(target, args));
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}

/**
 * The CPU time of the main thread alone (µs), where the event loop runs: `process.cpuUsage()` also
 * counts V8's GC threads and libuv's pool. On Linux from `/proc/self/task/<pid>/schedstat` (ns).
 */
const mainThreadCpuMicros: () => number = (() => {
  try {
    const fd = openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
    const buffer = Buffer.alloc(128);
    return () => Number(buffer.toString('latin1', 0, readSync(fd, buffer, 0, buffer.length, 0)).split(' ')[0]) / 1000;
  } catch {
    return () => process.cpuUsage().user + process.cpuUsage().system;
  }
})();

/**
 * The memory after a full GC once idle memory has settled: V8's memory reducer starts some idle
 * seconds after a burst and gives back what the heap grew for it. Samples so taken are alike
 * however busy the moments before them were; samples right after a burst differ by tens of MB.
 */
async function settledMemory(maxMs = 20_000): Promise<NodeJS.MemoryUsage & { settledMs: number }> {
  const started = performance.now();
  memoryAfterGc();
  let last = process.memoryUsage();
  let stableSince = started;
  while (performance.now() - started < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = process.memoryUsage();
    if (now.heapTotal < last.heapTotal || now.rss < last.rss * 0.99) stableSince = performance.now();
    last = now;
    // The reducer's first collection comes about 8 s after the heap goes idle.
    if (performance.now() - started > 10_000 && performance.now() - stableSince > 2_000) break;
  }
  return { ...memoryAfterGc(), settledMs: Math.round(performance.now() - started) };
}

/** `process.memoryUsage()` after a full garbage collection, in bytes. */
function memoryAfterGc(): NodeJS.MemoryUsage {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('Run the bench server with --expose-gc to measure memory.');
  // Twice: the first pass may leave objects whose finalizers free more on the second.
  gc();
  gc();
  return process.memoryUsage();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
