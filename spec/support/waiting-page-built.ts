import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { builtAssetsDir, inTestRun } from './run-build';

const ROOT = path.resolve(__dirname, '../..');

/** Where `node build.mjs` left the waiting page, which the servers read at start: this run's build (`run-build.ts`). */
export const WAITING_PAGE = path.join(builtAssetsDir(), 'waiting.html');

/**
 * Makes sure the waiting page is built before a server starts. In a jest run the global set-up
 * built it once for every test (`spec/support/global-setup.ts`): a page missing there is an
 * error. Elsewhere (a benchmark) a page already in public/assets is used as is, or is built
 * there as `npm start` builds it.
 */
export async function ensureWaitingPageBuilt(): Promise<void> {
  if (existsSync(WAITING_PAGE)) return;
  if (inTestRun()) throw new Error(`${WAITING_PAGE} is missing: the global set-up (spec/support/global-setup.ts) builds it before the tests run.`);
  execFileSync(process.execPath, ['--input-type=module', '-e', "const { buildPage } = await import('./build.mjs'); await buildPage({ log: false });"], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}
