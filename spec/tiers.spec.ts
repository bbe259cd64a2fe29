import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '..');

/** Every spec file under spec/, relative to the repository. */
const specFiles = (): string[] =>
  readdirSync(__dirname, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.spec\.tsx?$/.test(file))
    .map((file) => path.join('spec', file).split(path.sep).join('/'))
    .sort();

/** The files Jest itself would run in `tier` (`jest --listTests`), relative to the repository. */
async function listed(tier: string): Promise<string[]> {
  const jest = require.resolve('jest/bin/jest');
  const { stdout } = await promisify(execFile)(process.execPath, [jest, '--listTests', '--json', '--selectProjects', tier], { cwd: ROOT });
  return (JSON.parse(stdout) as string[]).map((file) => path.relative(ROOT, file).split(path.sep).join('/')).sort();
}

/**
 * The two tiers of jest.config.js: every spec file is in exactly one, whoever adds it and
 * wherever (`npm run test:fast` and `npm run test:system` together run all of `npm test`).
 */
describe('the test tiers', () => {
  let fast: string[];
  let system: string[];
  beforeAll(async () => {
    [fast, system] = await Promise.all([listed('fast'), listed('system')]);
  }, 60_000);

  it('should put every spec file in exactly one tier', () => {
    expect(fast.filter((file) => system.includes(file))).toEqual([]);
    expect([...fast, ...system].sort()).toEqual(specFiles());
  });

  it('should put Chromium, Redis Cluster and Sentinel, chaos and the packed package in the system tier, by their paths', () => {
    for (const file of [
      'spec/e2e/held-post.spec.ts',
      'spec/server/redis-cluster.spec.ts',
      'spec/server/redis-sentinel.spec.ts',
      'spec/server/chaos-cluster.spec.ts',
    ]) {
      expect(system).toContain(file);
    }
    expect(system).toContain('spec/package/package.spec.ts');
    expect(
      system.every((file) => file.startsWith('spec/e2e/') || /(cluster|sentinel|chaos|failover|scale-out|package|container|worker)[^/]*$/.test(file)),
    ).toBe(true);
  });

  it('should keep the rest in the fast tier: the rules, the page, the server, one Redis, the connectors, the docs', () => {
    for (const file of ['spec/streams/', 'spec/page/', 'spec/server/store-redis', 'spec/connector/', 'spec/docs/', 'spec/elements/', 'spec/tiers.spec.ts']) {
      expect(fast.some((listedFile) => listedFile.startsWith(file))).toBe(true);
    }
  });
});
