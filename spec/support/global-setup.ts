import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import buildWaitingPage from '../e2e/global-setup';
import { BUILD_VARIABLE, OWN_BUILD_VARIABLE, builtAssetsDir, builtServerScript } from './run-build';

const ROOT = path.resolve(__dirname, '../..');

/**
 * Builds the waiting page (`buildPage()`, as `node build.mjs`) and the server (`buildServer()`,
 * as `node build-server.mjs`) into `dir`, laid out as `run-build.ts` says. `.ci/run` calls it
 * once for its four runs of the tests, while the checks run.
 */
export async function buildForTests(dir: string): Promise<void> {
  process.env[BUILD_VARIABLE] = dir;
  // The built server finds its root by package.json (and reads its Node flags there), and its
  // dependencies in node_modules, as it does in the repository.
  await copyFile(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const script = `const { buildServer } = await import('./build-server.mjs'); await buildServer({ outdir: ${JSON.stringify(path.join(dir, 'dist'))}, log: false });`;
  const server = promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
  buildWaitingPage();
  await server;
}

/**
 * Jest's global set-up: builds the page and the server once for the whole run, into a folder of
 * the run's own, named to the test files by WAITING_ROOM_BUILD (`run-build.ts`). Nothing is
 * built into the repository's public/assets or dist/, so runs side by side, or a run and a
 * developer's `npm start`, never rebuild each other's files. A WAITING_ROOM_BUILD set before the
 * run, holding both builds (`buildForTests`, as `.ci/run` does), is taken as it is, and kept.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env[BUILD_VARIABLE] && existsSync(builtServerScript()) && existsSync(path.join(builtAssetsDir(), 'waiting.html'))) return;
  const dir = await mkdtemp(path.join(tmpdir(), 'waiting-room-build-'));
  // Set before the workers start, so that every test file inherits it; the tear-down removes it.
  await buildForTests(dir);
  process.env[OWN_BUILD_VARIABLE] = dir;
}
