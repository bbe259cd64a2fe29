/**
 * The waiting-room server as the capacity benchmark runs it: the real `start(loadConfig(env))`
 * in its own process, with the page built by the benchmark, and a store that records when each
 * release was decided. Answers the orchestrator's requests for memory (after a full GC: run
 * with --expose-gc), CPU time, the release times, what each fan-out took (its last socket
 * written), the event loop's delay and the garbage collector's pauses.
 */
import { demoShop } from '../../demo/origin';
import { loadConfig } from '../../server/process/config';
import { CHANNELS } from '@waiting-room/streams/contract';
import { createFanout } from '../../server/realtime/create-fanout';
import { start } from '../../server/process/start';
import { createStore } from '../../server/process/stores';
import { openSync, readSync } from 'node:fs';
import path from 'node:path';
import { PerformanceObserver, constants, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { ChannelMessage } from '../../server/realtime/fanout';
import type { Delivered } from '../../server/realtime/delivery';
import { serveRequests } from './ipc';
import type { CpuSample, MemorySample, ServerReady } from './protocol';
import { RecordingFanout, servedOf } from './recording-fanout';
import { recordingStore } from './recording-store';

async function main(): Promise<void> {
  const pageDir = process.env.BENCH_PAGE_DIR;
  if (!pageDir) throw new Error('BENCH_PAGE_DIR must name the built page assets.');
  const config = { ...loadConfig(process.env), assetsDir: pageDir, pageHtmlPath: path.join(pageDir, 'waiting.html') };
  const { store, releasedAt, batchDecidedAt } = recordingStore(createStore(config));
  // The fanout the configuration asks for (local, or Redis pub/sub with REDIS_URL), as start() picks it.
  const fanout = new RecordingFanout(await createFanout(config, console));
  const fanouts = new FanoutLog();
  const server = await start(config, { defaultOrigin: demoShop, store, fanout, onDelivered: (message, delivered) => fanouts.add(message, delivered) });
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const gc = new GcPauses();
  const holds = new LoopHolds(gc);
  const ready: ServerReady = { url: server.url, port: server.port, pid: process.pid };
  serveRequests(ready, {
    memory: () => memoryAfterGc(),
    /** Memory once the process has settled: V8's memory reducer has given back what an idle heap does not need. */
    settledMemory: (maxMs?: number) => settledMemory(maxMs),
    cpu: (): CpuSample => process.cpuUsage(),
    /** The event loop's delay since the last call (ms): how long the server was busy at a stretch. */
    loopDelay: () => {
      const figures = { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 };
      loopDelay.reset();
      return figures;
    },
    /** The garbage collector's pauses since the last call. */
    gcPauses: () => gc.take(),
    /** The event loop's holds over 20 ms since the last call, by the clock and by the main thread's own CPU time. */
    loopHolds: () => holds.stats(),
    /** What each fan-out since the last call took (`FanoutRecord`). */
    fanouts: () => fanouts.take(),
    /** [uuid, decided at, handed to the sockets at] of every release so far. */
    releases: () => [...releasedAt].map(([uuid, at]) => [uuid, at, fanout.handedAt.get(CHANNELS.client(uuid))]),
    /** [served, decided at, QueueMoved handed to the sockets at] of every release batch so far. */
    moves: () => [...batchDecidedAt].map(([served, at]) => [served, at, fanout.movedHandedAt.get(served)]),
    close: async () => {
      await server.close();
      setImmediate(() => process.exit(0));
    },
  });
}

/** One event's delivery to this process's sockets: `QueueMoved` keyed by its `served`, a release by its channel. */
export type FanoutRecord = [
  kind: 'moved' | 'release',
  key: number | string,
  publishedAt: number,
  firstWriteAt: number,
  lastWriteAt: number,
  sockets: number,
  /** Time spent writing its own sockets (ms). */
  writingMs: number,
  /** Stopped by a newer move before it reached every socket. */
  superseded: boolean,
];

class FanoutLog {
  private records: FanoutRecord[] = [];

  add(message: ChannelMessage, { publishedAt, firstWriteAt, lastWriteAt, sockets, writingMs, superseded }: Delivered): void {
    const epoch = (at: number) => Math.round((performance.timeOrigin + at) * 100) / 100;
    const moved = message.channel === CHANNELS.queue && message.event === CHANNELS.movedEvent;
    const key = moved ? servedOf(message.data) : message.channel;
    this.records.push([
      moved ? 'moved' : 'release',
      key,
      epoch(publishedAt),
      epoch(firstWriteAt),
      epoch(lastWriteAt),
      sockets,
      Math.round(writingMs * 1000) / 1000,
      superseded,
    ]);
  }

  take(): FanoutRecord[] {
    const taken = this.records;
    this.records = [];
    return taken;
  }
}

/**
 * When the event loop was held: a timer due every `PERIOD_MS` that fires more than `thresholdMs`
 * late (after the one before it, less its own period, as `monitorEventLoopDelay` counts a delay)
 * says the loop did nothing else all that time. Each hold is kept with the main thread's own CPU time meanwhile (`mainThreadCpuMicros`): on a shared machine
 * a process may also wait that long for a core, its loop held by nothing of its own (the CPU time
 * then falls far short of the window); and with the GC pauses that fell inside it.
 */
class LoopHolds {
  /** For the paced runs' figures, since the last `stats`. */
  private forStats: { fromMs: number; toMs: number; lateMs: number; ownMs: number }[] = [];
  /** When `stats` was last called (`performance.now()`). */
  private since = performance.now();
  private last = microsNow();
  private lastCpu = mainThreadCpuMicros();

  constructor(
    private readonly gc: GcPauses,
    thresholdMs = 20,
  ) {
    setInterval(() => {
      const now = microsNow();
      const cpu = mainThreadCpuMicros();
      const lateMicros = now - this.last - PERIOD_MS * 1000;
      if (lateMicros > thresholdMs * 1000) {
        const toMs = performance.now();
        this.forStats.push({
          fromMs: toMs - (now - this.last) / 1000,
          toMs,
          lateMs: lateMicros / 1000,
          // At most the hold itself: the window also holds the timer's period, which may have been busy too.
          ownMs: Math.min(lateMicros, cpu - this.lastCpu) / 1000,
        });
      }
      this.last = now;
      this.lastCpu = cpu;
    }, PERIOD_MS).unref();
  }

  /**
   * The holds since the last call: how many, the longest by the clock and by the main thread's own
   * CPU time, the GC pauses inside that longest own hold, and how many holds had a GC pause inside.
   */
  stats() {
    const holds = this.forStats;
    const since = this.since;
    this.forStats = [];
    this.since = performance.now();
    const round = (value: number) => Math.round(value * 10) / 10;
    const gcIn = holds.map((hold) => this.gc.within(hold.fromMs, hold.toMs));
    const longestOwn = holds.reduce((top, hold, index) => (hold.ownMs > holds[top].ownMs ? index : top), 0);
    return {
      count: holds.length,
      longestMs: round(holds.reduce((top, hold) => Math.max(top, hold.lateMs), 0)),
      longestOwnMs: round(holds[longestOwn]?.ownMs ?? 0),
      longestOwnGcMs: round(gcIn[longestOwn] ?? 0),
      withGc: gcIn.filter((ms) => ms > 0).length,
      // When each came (ms since the call before this one), the first few: whether they cluster.
      first: holds.slice(0, 12).map((hold, index) => ({
        atMs: Math.round(hold.fromMs - since),
        lateMs: round(hold.lateMs),
        ownMs: round(hold.ownMs),
        gcMs: round(gcIn[index]),
      })),
    };
  }
}

/** The period of the timer that finds the holds (ms); a hold is how late it fires beyond it. */
const PERIOD_MS = 5;

/**
 * The CPU time of the main thread alone (µs), where the event loop runs: `process.cpuUsage()`
 * also counts V8's GC helper threads and libuv's pool, which run beside the loop without holding
 * it. On Linux the thread's run time from `/proc/self/task/<pid>/schedstat` (its first field, ns),
 * read through a descriptor kept open; elsewhere the process's CPU time.
 */
const mainThreadCpuMicros: () => number = (() => {
  let fd: number;
  try {
    fd = openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
  } catch {
    return () => {
      const { user, system } = process.cpuUsage();
      return user + system;
    };
  }
  const buffer = Buffer.alloc(128);
  return () => {
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.toString('latin1', 0, length);
    return Number(text.slice(0, text.indexOf(' '))) / 1000;
  };
})();

function microsNow(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** The garbage collector's pauses (each holds the event loop), as `perf_hooks` reports them, by kind. */
class GcPauses {
  private pauses: [kind: string, ms: number][] = [];
  /** [start, end] of the recent pauses (performance.now() ms), to find those inside a hold. */
  private recent: [number, number][] = [];

  constructor() {
    const kinds: Record<number, string> = {
      [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
      [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
      [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
      [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
    };
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = ((entry as { detail?: unknown }).detail as { kind?: number } | undefined)?.kind;
        this.pauses.push([kinds[kind ?? -1] ?? 'other', entry.duration]);
        this.recent.push([entry.startTime, entry.startTime + entry.duration]);
      }
      // A paced run's holds are read within a minute of it.
      const since = performance.now() - 120_000;
      if (this.recent.length > 0 && this.recent[0][1] < since) this.recent = this.recent.filter(([, end]) => end >= since);
    }).observe({ entryTypes: ['gc'] });
  }

  /** The pause time (ms) between `fromMs` and `toMs`. */
  within(fromMs: number, toMs: number): number {
    let ms = 0;
    for (const [start, end] of this.recent) ms += Math.max(0, Math.min(end, toMs) - Math.max(start, fromMs));
    return ms;
  }

  /** Count, total and longest pause since the last call, and the longest of each kind. */
  take(): { count: number; totalMs: number; maxMs: number; maxByKind: Record<string, number>; totalByKind: Record<string, number> } {
    const { pauses } = this;
    this.pauses = [];
    const maxByKind: Record<string, number> = {};
    const totalByKind: Record<string, number> = {};
    for (const [kind, ms] of pauses) {
      maxByKind[kind] = Math.max(maxByKind[kind] ?? 0, Math.round(ms * 10) / 10);
      totalByKind[kind] = Math.round(((totalByKind[kind] ?? 0) + ms) * 10) / 10;
    }
    return {
      count: pauses.length,
      totalMs: pauses.reduce((sum, [, ms]) => sum + ms, 0),
      maxMs: pauses.reduce((top, [, ms]) => Math.max(top, ms), 0),
      maxByKind,
      totalByKind,
    };
  }
}

/**
 * Waits, without load, until the memory V8 holds stops shrinking (its memory reducer starts after
 * some idle seconds and gives back new space and pooled pages it grew under load), then reads the
 * memory after a full GC. Two samples taken so are alike however busy the moments before them
 * were, where samples right after a burst differ by tens of MB of memory held for the next one.
 */
async function settledMemory(maxMs = 20_000): Promise<MemorySample & { settledMs: number }> {
  const started = performance.now();
  memoryAfterGc();
  let last = process.memoryUsage();
  let stableSince = performance.now();
  while (performance.now() - started < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = process.memoryUsage();
    if (now.heapTotal < last.heapTotal || now.rss < last.rss * 0.99) stableSince = performance.now();
    last = now;
    // The reducer's first collection comes about 8 s after the heap goes idle; it is done once nothing shrank for a while after it.
    if (performance.now() - started > 10_000 && performance.now() - stableSince > 2_000) break;
  }
  return { ...memoryAfterGc(), settledMs: Math.round(performance.now() - started) };
}

function memoryAfterGc(): MemorySample {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('Run the bench server with --expose-gc to measure memory.');
  // Twice: the first pass may leave objects whose finalizers free more on the second.
  gc();
  gc();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, heapTotal, external, arrayBuffers };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
