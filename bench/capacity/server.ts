/**
 * The waiting-room server as the capacity benchmark runs it: the real `start(loadConfig(env))`
 * in its own process, with the page built by the benchmark, and a store that records when each
 * release was decided. Answers the orchestrator's requests for memory (after a full GC: run
 * with --expose-gc), CPU time and the release times.
 */
import { loadConfig } from '../../server/config';
import { start } from '../../server/start';
import { createStore } from '../../server/store/create';
import path from 'node:path';
import { serveRequests } from './ipc';
import type { CpuSample, MemorySample } from './protocol';
import { RecordingStore } from './recording-store';

async function main(): Promise<void> {
  const pageDir = process.env.BENCH_PAGE_DIR;
  if (!pageDir) throw new Error('BENCH_PAGE_DIR must name the built page assets.');
  const config = { ...loadConfig(process.env), assetsDir: pageDir, pageHtmlPath: path.join(pageDir, 'waiting.html') };
  const store = new RecordingStore(createStore(config));
  const server = await start(config, { store });
  serveRequests(
    { url: server.url, port: server.port, pid: process.pid },
    {
      memory: () => memoryAfterGc(),
      cpu: (): CpuSample => process.cpuUsage(),
      releases: () => [...store.releasedAt],
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
