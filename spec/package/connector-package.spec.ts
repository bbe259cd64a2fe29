import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Packed } from '../support/packed-package';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

/**
 * `@waiting-room/connector` as a site installs it: packed (`prepack` builds dist afresh), unpacked
 * into a project of its own beside its one dependency, and imported by plain Node as ES modules.
 */
describe('the connector package', () => {
  let dir: string;
  let packed: Packed;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wr-connector-'));
    // Packed from a copy of its sources, so that its build never empties the dist/ another test
    // (the Next.js example's) is reading; the tools come from the repository's node_modules.
    const sources = path.join(dir, 'connector');
    await cp(path.join(ROOT, 'connector'), sources, { recursive: true, filter: (from) => !/[\\/](dist|examples)$/.test(from) });
    await symlink(path.join(ROOT, 'node_modules'), path.join(sources, 'node_modules'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: sources });
    [packed] = JSON.parse(stdout) as [Packed];
    const installed = path.join(dir, 'site', 'node_modules', '@waiting-room', 'connector');
    await mkdir(installed, { recursive: true });
    await run('tar', ['-xzf', path.join(dir, packed.filename), '-C', installed, '--strip-components=1']);
    await symlink(path.join(ROOT, 'node_modules', 'jose'), path.join(dir, 'site', 'node_modules', 'jose'));
    await writeFile(path.join(dir, 'site', 'package.json'), '{"type": "module"}');
  }, 120_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('holds the built modules, their types and the README, and no sources', () => {
    const files = packed.files.map((file) => file.path).sort();
    for (const entry of ['index', 'express', 'fastify', 'next', 'worker', 'web', 'pass']) {
      expect(files).toContain(`dist/${entry}.js`);
      expect(files).toContain(`dist/${entry}.d.ts`);
    }
    expect(files).toContain('README.md');
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
  });

  test('is imported by each of its entries, and signs and checks a pass', async () => {
    const script = `
      import { createWebConnector, signPass, verifyPass } from '@waiting-room/connector';
      import { waitingRoom as express } from '@waiting-room/connector/express';
      import { waitingRoom as fastify } from '@waiting-room/connector/fastify';
      import { waitingRoom as next } from '@waiting-room/connector/next';
      import { createWorker } from '@waiting-room/connector/worker';
      const secret = 'x'.repeat(32);
      const pass = await signPass({ room: 'shop', visitor: 'v'.repeat(22), session: 's', issuedAt: 1, expiresAt: 4102444800 }, secret);
      const checked = await verifyPass(pass, secret, 'shop', Date.now());
      const options = { waitingRoom: 'https://queue.example', room: 'shop', secret };
      const answer = await next(options)(new Request('https://shop.example/'));
      const worker = await createWorker({ protect: ['/checkout'] }).fetch(new Request('https://shop.example/checkout'), { WAITING_ROOM_URL: 'https://queue.example', WAITING_ROOM_PASS_SECRET: secret }, { waitUntil() {} });
      console.log(JSON.stringify({ kinds: [typeof createWebConnector, typeof express(options), typeof fastify(options)], visitor: checked.visitor, answer: answer?.status ?? null, worker: worker.status }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: path.join(dir, 'site') });
    expect(JSON.parse(stdout)).toEqual({ kinds: ['function', 'function', 'function'], visitor: 'v'.repeat(22), answer: 303, worker: 303 });
  });
});
