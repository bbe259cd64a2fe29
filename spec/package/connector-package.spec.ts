import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

/** The two commands docs/adopt.md gives to pack the connector in a clone and install it in a site. */
function documentedCommands(): { pack: string; install: string } {
  const markdown = readFileSync(path.join(ROOT, 'docs/adopt.md'), 'utf8');
  const block = /```sh\n(# in the clone of this repository[\s\S]*?)```/.exec(markdown)?.[1];
  const commands = (block ?? '').split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  if (commands.length !== 2) throw new Error(`docs/adopt.md should give two commands to pack and install the connector; found: ${JSON.stringify(commands)}`);
  return { pack: commands[0], install: commands[1] };
}

/**
 * `@waiting-room/connector` as a site installs it, by the commands of docs/adopt.md: packed in a
 * clone of the repository (`prepack` builds dist afresh), installed from the tarball into a
 * project of its own, and imported by plain Node as ES modules.
 */
describe('the connector package', () => {
  let dir: string;
  let files: string[];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wr-connector-'));
    const { pack, install } = documentedCommands();
    // The clone: the root's package.json (its workspaces), a copy of the connector's sources, so
    // that its build never empties the dist/ another test (the Next.js example's) is reading,
    // and the repository's node_modules for its tools, as `npm ci` leaves them.
    const clone = path.join(dir, 'waiting-room');
    await mkdir(clone);
    await cp(path.join(ROOT, 'package.json'), path.join(clone, 'package.json'));
    await cp(path.join(ROOT, 'connector'), path.join(clone, 'connector'), {
      recursive: true,
      filter: (from) => !/[\\/](dist|examples|node_modules)$/.test(from),
    });
    await symlink(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
    await run('sh', ['-c', pack], { cwd: clone });
    const tarball = /\/path\/to\/waiting-room\/(\S+\.tgz)/.exec(install)?.[1];
    if (tarball === undefined) throw new Error(`The install command names no tarball in the clone: ${install}`);
    files = (await run('tar', ['-tzf', path.join(clone, tarball)])).stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.replace(/^package\//, ''));
    // The site: its one dependency there already, since the tests have no registry (offline).
    const site = path.join(dir, 'site');
    await mkdir(path.join(site, 'node_modules'), { recursive: true });
    await writeFile(path.join(site, 'package.json'), '{"name": "site", "private": true, "type": "module"}');
    await cp(path.join(ROOT, 'node_modules', 'jose'), path.join(site, 'node_modules', 'jose'), { recursive: true });
    await run('sh', ['-c', install.replace('/path/to/waiting-room/', `${clone}/`)], {
      cwd: site,
      env: { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' },
    });
  }, 180_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('holds the built modules, their types and the README, and no sources', () => {
    for (const entry of ['index', 'express', 'fastify', 'next', 'worker', 'web', 'pass', 'revocations']) {
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
