/**
 * The real server (`start(loadConfig(env))`) in a process of its own, with the page the benchmark
 * built: one waiting room of the admission benchmark and the rehearsal, the gateway of the
 * gateway benchmark. The environment (BENCH_ADMISSION_ENV, JSON) is the configuration under test.
 */
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '../../server/process/config';
import { start } from '../../server/process/start';
import { serveRequests } from '../capacity/ipc';
import type { CpuSample } from '../capacity/protocol';

async function main(): Promise<void> {
  const pageDir = process.env.BENCH_PAGE_DIR;
  const env = process.env.BENCH_ADMISSION_ENV;
  if (!pageDir || !env) throw new Error('BENCH_PAGE_DIR and BENCH_ADMISSION_ENV must be set.');
  const config = { ...loadConfig(JSON.parse(env) as Record<string, string>), assetsDir: pageDir, pageHtmlPath: path.join(pageDir, 'waiting.html') };
  const server = await start(config);
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  serveRequests(
    { url: server.url, port: server.port, adminToken: server.adminToken, realtimeKey: config.pusher.key, pid: process.pid },
    {
      cpu: (): CpuSample => process.cpuUsage(),
      memory: () => process.memoryUsage(),
      /** The event loop's delay since the last call (ms): time the room's own measures of the origin may include. */
      loopDelay: () => {
        const figures = { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 };
        loopDelay.reset();
        return figures;
      },
      close: () => server.close(),
    },
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
