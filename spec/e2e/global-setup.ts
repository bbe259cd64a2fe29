import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { builtAssetsDir } from '../support/run-build';

/**
 * Builds the waiting page with `buildPage()`, the build `node build.mjs` runs for `npm start`,
 * into this run's folder (`builtAssetsDir()`), where the servers the tests start read it. Its
 * size report is not printed; a build that breaks fails the run with esbuild's message. The
 * global set-up (`spec/support/global-setup.ts`) calls it once per run.
 */
export default function buildWaitingPage(): void {
  const script = `const { buildPage } = await import('./build.mjs'); await buildPage({ outdir: ${JSON.stringify(builtAssetsDir())}, log: false });`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: path.resolve(__dirname, '../..'),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
