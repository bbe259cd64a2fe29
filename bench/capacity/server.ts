/**
 * The waiting-room server as the capacity benchmark runs it: the real `start(loadConfig(env))`
 * in its own process, with the page built by the benchmark, and a store that records when each
 * release was decided. Answers the orchestrator's requests for memory (after a full GC: run
 * with --expose-gc), CPU time and the release times.
 */
import { loadConfig } from '../../server/config';
import { cpuProfiler } from '../cpu-profiler';
import { CHANNELS } from '@waiting-room/streams/contract';
import { createFanout } from '../../server/realtime/create-fanout';
import { start } from '../../server/start';
import { createStore } from '../../server/store/create';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { serveRequests } from './ipc';
import type { CpuSample, MemorySample } from './protocol';
import { RecordingFanout } from './recording-fanout';
import { RecordingStore } from './recording-store';

async function main(): Promise<void> {
  const pageDir = process.env.BENCH_PAGE_DIR;
  if (!pageDir) throw new Error('BENCH_PAGE_DIR must name the built page assets.');
  const config = { ...loadConfig(process.env), assetsDir: pageDir, pageHtmlPath: path.join(pageDir, 'waiting.html') };
  const store = new RecordingStore(createStore(config));
  // The fanout the configuration asks for (local, or Redis pub/sub with REDIS_URL), as start() picks it.
  const fanout = new RecordingFanout(await createFanout(config, console));
  const server = await start(config, { store, fanout });
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  serveRequests(
    { url: server.url, port: server.port, pid: process.pid },
    {
      memory: () => memoryAfterGc(),
      cpu: (): CpuSample => process.cpuUsage(),
      /** The event loop's delay since the last call (ms): how long the server was busy at a stretch. */
      loopDelay: () => {
        const figures = { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 };
        loopDelay.reset();
        return figures;
      },
      ...cpuProfiler(),
      /** [uuid, decided at, handed to the sockets at] of every release so far. */
      releases: () => [...store.releasedAt].map(([uuid, at]) => [uuid, at, fanout.handedAt.get(CHANNELS.client(uuid))]),
      /** [served, decided at, QueueMoved handed to the sockets at] of every release batch so far. */
      moves: () => [...store.batchDecidedAt].map(([served, at]) => [served, at, fanout.movedHandedAt.get(served)]),
      close: async () => {
        await server.close();
        setImmediate(() => process.exit(0));
      },
    },
  );
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
