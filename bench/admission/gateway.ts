/**
 * The real server (`start(loadConfig(env))`) in a process of its own, with the page the benchmark
 * built: one waiting room of the admission benchmark, the gateway of the
 * gateway benchmark. The environment (BENCH_ADMISSION_ENV, JSON) is the configuration under test.
 */
import path from 'node:path';
import { loadConfig } from '../../server/process/config';
import { start } from '../../server/process/start';
import { serveRequests } from '../capacity/ipc';

async function main(): Promise<void> {
  const pageDir = process.env.BENCH_PAGE_DIR;
  const env = process.env.BENCH_ADMISSION_ENV;
  if (!pageDir || !env) throw new Error('BENCH_PAGE_DIR and BENCH_ADMISSION_ENV must be set.');
  const config = { ...loadConfig(JSON.parse(env) as Record<string, string>), assetsDir: pageDir, pageHtmlPath: path.join(pageDir, 'waiting.html') };
  const server = await start(config);
  serveRequests(
    { url: server.url, port: server.port, adminToken: server.adminToken, realtimeKey: config.pusher.key, pid: process.pid },
    { cpu: () => process.cpuUsage(), memory: () => process.memoryUsage(), close: () => server.close() },
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
