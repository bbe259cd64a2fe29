import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Builds the waiting page once for every end-to-end test, as `node build.mjs` does, into
 * public/assets (where the server reads it). `buildPage()` is called rather than the script so
 * that a page over its size budget (which makes `node build.mjs` exit 1 for the benchmark's
 * sake) is still tested; a build that breaks fails the run with esbuild's message.
 */
export default function buildWaitingPage(): void {
  const root = path.resolve(__dirname, '../..');
  execFileSync(
    process.execPath,
    ['--input-type=module', '-e', "const { buildPage } = await import('./build.mjs'); await buildPage({ log: false });"],
    { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
  );
}
