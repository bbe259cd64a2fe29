import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Where `node build.mjs` leaves the waiting page, which `npm start` reads at start. */
export const WAITING_PAGE = path.join(ROOT, 'public', 'assets', 'waiting.html');

/** How long a build under way elsewhere (it empties the folder, then fills it) is given to finish. */
const OTHER_BUILD_GRACE_MS = 15_000;

/**
 * Makes sure the waiting page is built before a server process starts. A page already there is
 * used as is. When the folder is there without the page, another build is probably rewriting
 * it: that one is waited for. Otherwise (or if it never finishes) the page is built here, as
 * the e2e setup builds it (`buildPage()`, which also builds a page over its size budget).
 */
export async function ensureWaitingPageBuilt(): Promise<void> {
  const deadline = Date.now() + OTHER_BUILD_GRACE_MS;
  while (!existsSync(WAITING_PAGE) && existsSync(path.dirname(WAITING_PAGE)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (existsSync(WAITING_PAGE)) return;
  execFileSync(process.execPath, ['--input-type=module', '-e', "const { buildPage } = await import('./build.mjs'); await buildPage({ log: false });"], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}
