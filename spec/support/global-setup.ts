import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import buildWaitingPage from '../e2e/global-setup';
import { BUILD_VARIABLE } from './run-build';

const ROOT = path.resolve(__dirname, '../..');

/**
 * Jest's global set-up: builds the waiting page (`buildPage()`, as `node build.mjs`) and the
 * server (`buildServer()`, as `node build-server.mjs`) once for the whole run, into a folder of
 * the run's own, named to the test files by WAITING_ROOM_BUILD (`run-build.ts`). Nothing is
 * built into the repository's public/assets or dist/, so runs side by side, or a run and a
 * developer's `npm start`, never rebuild each other's files.
 */
export default async function globalSetup(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'waiting-room-build-'));
  // Set before the workers start, so that every test file inherits it.
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
