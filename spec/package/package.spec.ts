import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { packAndInstall, type InstalledPackage, type Packed } from '../support/packed-package';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

/** The module specifiers a built file imports, statically or not. */
const importsOf = (code: string): string[] => [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((match) => match[1]);

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

jest.setTimeout(180_000);

describe('the package as published: packed, then installed into an empty project', () => {
  let pkg: InstalledPackage | undefined;
  let packed: Packed;
  let consumer: string;
  let installed: string;

  beforeAll(async () => {
    pkg = await packAndInstall();
    ({ packed, consumer, installed } = pkg);
  });

  afterAll(async () => {
    await pkg?.remove();
  });

  it('should hold the built ES modules with their types, the README and the CHANGELOG, and no test or TypeScript source', () => {
    const files = packed.files.map((file) => file.path).sort();
    expect(packed).toMatchObject({ name: '@waiting-room/streams', version: '1.5.0' });
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'CHANGELOG.md',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/contract/index.js',
        'dist/contract/index.d.ts',
      ]),
    );
    const others = files.filter((file) => !['package.json', 'README.md', 'CHANGELOG.md'].includes(file));
    expect(others.filter((file) => !/^dist\/.+\.(js|d\.ts)$/.test(file))).toEqual([]);
    expect(files.filter((file) => /spec|test|fixture/i.test(file))).toEqual([]);
  });

  it('should need nothing at run time but rxjs, and its contract nothing at all', async () => {
    const files = (await filesUnder(path.join(installed, 'dist'))).filter((file) => file.endsWith('.js'));
    const outside = async (inContract: boolean) => {
      const found: string[] = [];
      for (const file of files.filter((one) => one.startsWith('contract') == inContract)) {
        for (const specifier of importsOf(await readFile(path.join(installed, 'dist', file), 'utf8'))) {
          const relative = specifier.startsWith('./') || specifier.startsWith('../');
          const leavesContract = inContract && !path.join(path.dirname(file), specifier).startsWith('contract');
          if (relative ? leavesContract : inContract || !/^rxjs(\/|$)/.test(specifier)) found.push(`${file} imports ${specifier}`);
        }
      }
      return found;
    };
    expect(files.length).toBeGreaterThan(20);
    expect(await outside(false)).toEqual([]);
    expect(await outside(true)).toEqual([]);
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8'));
    expect({ dependencies: manifest.dependencies, peerDependencies: manifest.peerDependencies }).toEqual({ peerDependencies: { rxjs: '^7.8.0' } });
  });

  it('should say where its sources, docs and issues are, and its declarations name no private file', async () => {
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      repository: { type: 'git', url: expect.stringMatching(/^git\+https:\/\/github\.com\/.+\.git$/), directory: 'streams' },
      homepage: expect.stringMatching(/^https:\/\/github\.com\/.+\/streams#readme$/),
      bugs: { url: expect.stringMatching(/^https:\/\/github\.com\/.+\/issues$/) },
    });
    const declarations = (await filesUnder(path.join(installed, 'dist'))).filter((file) => file.endsWith('.d.ts'));
    // The rules' declarations are private, and no public declaration needs them: not shipped.
    expect(declarations.filter((file) => file.startsWith('rules'))).toEqual([]);
    const mentions: string[] = [];
    for (const file of declarations) {
      const text = await readFile(path.join(installed, 'dist', file), 'utf8');
      // Comments only: the imports between the package's own files are its business.
      const comments = text.match(/\/\*[\s\S]*?\*\/|\/\/.*$/gm) ?? [];
      for (const comment of comments) {
        for (const name of comment.match(/\brules\/[\w-]+|\b[\w-]+\.(?:ts|md)\b|\b(?:docs|server|src|spec)\/[\w./-]+/g) ?? [])
          mentions.push(`${file}: ${name}`);
      }
    }
    expect(mentions).toEqual([]);
  });

  it('should import from Node as ES modules, by its two entry points only, and run a queue', async () => {
    const { stdout } = await run(process.execPath, ['consumer.mjs'], { cwd: consumer });

    expect(JSON.parse(stdout)).toEqual({
      statuses: [
        { kind: 'loading', connection: 'initialized', failedPolls: 0 },
        { kind: 'loading', connection: 'connected', failedPolls: 0 },
        { kind: 'waiting', position: 3, estimated: 2, updatedAt: 0, connection: 'connected', failedPolls: 0 },
      ],
      checked: {
        ok: false,
        problems: ['realtime.port must be an integer from 1 to 65535'],
        errorReporting: { dsn: null, sampleRate: 0.5, release: '1.0.0' },
        language: null,
      },
      channels: ['private-App.User.7.u-1', 'App.Client.u-1', 'RequestUnqueud'],
      uuids: [true, false],
      poll: 60_000,
      lost: true,
      draw: { order: [4, 5, 3, 2, 1], ok: true, rank: 5 },
      deepImport: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
    });
  });

  it.each([
    ['a strict TypeScript project resolving modules as Node does (nodenext)', 'tsconfig.json'],
    ["a front end bundled by esbuild (the README's examples), at the strictest settings", 'tsconfig.front-end.json'],
  ])('should type-check in %s', async (_, project) => {
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', project], { cwd: consumer }).catch((error: { stdout: string }) => error);

    expect(result.stdout).toBe('');
  });
});
