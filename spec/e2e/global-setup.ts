import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Builds the waiting page once for every end-to-end test with `node build.mjs`, the build
 * `npm start` runs, into public/assets where the server reads it. Its size report is not
 * printed; a build that breaks fails the run with esbuild's message.
 */
export default function buildWaitingPage(): void {
  execFileSync(process.execPath, ['build.mjs'], {
    cwd: path.resolve(__dirname, '../..'),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
