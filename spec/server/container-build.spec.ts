import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '../..');

jest.setTimeout(180_000);

/** The build stage's `COPY <source…> <destination>` lines (not those from another stage). */
function buildStageCopies(dockerfile: string): { sources: string[]; destination: string }[] {
  const stage = dockerfile.split(/^FROM /m)[1] ?? '';
  return [...stage.matchAll(/^COPY (?!--from)(.+)$/gm)].map(([, line]) => {
    const parts = line.trim().split(/\s+/);
    return { sources: parts.slice(0, -1), destination: parts.at(-1)! };
  });
}

/**
 * The container can be built here without Docker: its build stage's COPY lines, applied to an
 * empty folder (with this checkout's node_modules, as its `npm ci` makes them), must hold every
 * source the page's and the server's builds read.
 */
describe('deploy/Dockerfile', () => {
  let dir: string;
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('should copy into its build stage every source the builds read', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-container-'));
    const copies = buildStageCopies(readFileSync(path.join(ROOT, 'deploy', 'Dockerfile'), 'utf8'));
    expect(copies.length).toBeGreaterThan(0);
    for (const { sources, destination } of copies) {
      for (const source of sources) {
        const target = destination.endsWith('/') || sources.length > 1 ? path.join(dir, destination, path.basename(source)) : path.join(dir, destination);
        mkdirSync(path.dirname(target), { recursive: true });
        cpSync(path.join(ROOT, source), target, { recursive: true });
      }
    }
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');

    const run = (script: string) => promisify(execFile)(process.execPath, [script], { cwd: dir, timeout: 150_000 });
    await run('build.mjs');
    await run('build-server.mjs');

    expect(existsSync(path.join(dir, 'dist', 'server.js'))).toBe(true);
    expect(existsSync(path.join(dir, 'public', 'assets', 'waiting.html'))).toBe(true);
    expect(existsSync(path.join(dir, 'public', 'assets', 'verify.html'))).toBe(true);
  });
});
