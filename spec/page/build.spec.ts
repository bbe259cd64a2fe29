import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

/** A static import of another built file, as esbuild and terser write it (`import"./x.js"`, `}from"./x.js"`). */
const STATIC_IMPORT = /(?:\bimport\s*|\bfrom\s*)"\.\/([^"]+\.js)"/g;

interface Measured {
  readonly gzip: number;
  readonly files: ReadonlyArray<{ readonly file: string; readonly gzip: number }>;
}

describe('build: the production bundle', () => {
  let outdir: string;
  let sizes: { initialJs: Measured; allJs: Measured; budget: { initialJsGzip: number }; withinBudget: boolean };

  beforeAll(() => {
    outdir = mkdtempSync(path.join(tmpdir(), 'waiting-page-'));
    const script = `import('./build.mjs').then((m) => m.buildPage({ outdir: ${JSON.stringify(outdir)}, log: false }))`;
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: 'pipe' });
    sizes = JSON.parse(readFileSync(path.join(outdir, 'size.json'), 'utf8'));
  }, 120_000);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  const read = (file: string) => readFileSync(path.join(outdir, file), 'utf8');

  it('should write waiting.html with hashed /assets/ URLs and exactly one empty config element', () => {
    const html = read('waiting.html');
    expect(html).toMatch(/<link rel="stylesheet" href="\/assets\/waiting-[A-Z0-9]+\.css">/);
    expect(html).toMatch(/<script type="module" src="\/assets\/main-[A-Z0-9]+\.js"><\/script>/);
    expect(html.split('<script id="waiting-room-config" type="application/json">{}</script>')).toHaveLength(2);
    expect(html).toContain('Finding your place in line…');
  });

  it('should measure as initial exactly the files waiting.html loads or preloads and the files they import statically', () => {
    const html = read('waiting.html');
    const loaded = [...html.matchAll(/<(?:script type="module" src|link rel="modulepreload" href)="\/assets\/([^"]+\.js)"/g)].map((match) => match[1]);
    const closure = new Set<string>();
    const visit = (file: string) => {
      if (closure.has(file)) return;
      closure.add(file);
      for (const match of read(file).matchAll(STATIC_IMPORT)) visit(match[1]);
    };
    loaded.forEach(visit);
    expect(sizes.initialJs.files.map((file) => file.file).sort()).toEqual([...closure].sort());
  });

  it('should load the page as one file, each lazy module as one more file that imports nothing', () => {
    const initial = sizes.initialJs.files.map((file) => file.file);
    expect(initial).toEqual([expect.stringMatching(/^main-[A-Z0-9]+\.js$/)]);
    const lazy = [...read(initial[0]).matchAll(/\bimport\("\.\/([^"]+\.js)"\)/g)].map((match) => match[1]);
    expect(lazy.length).toBeGreaterThan(0);
    expect(sizes.allJs.files.map((file) => file.file).sort()).toEqual([...initial, ...lazy].sort());
    for (const file of lazy) expect([...read(file).matchAll(STATIC_IMPORT)]).toEqual([]);
  });

  it.each([
    ['@sentry/browser', '__SENTRY__'],
    ['the replay code (its hidden form)', '"_method"'],
    ['the config-problem view', 'This waiting room could not start.'],
    ['the lost-place view', 'Your place in line was lost'],
  ])('should keep %s out of the JavaScript loaded before the position shows, in a lazy file', (_, marker) => {
    const initial = sizes.initialJs.files.map((file) => file.file);
    const lazy = sizes.allJs.files.map((file) => file.file).filter((file) => !initial.includes(file));
    expect(initial.some((file) => read(file).includes(marker))).toBe(false);
    expect(lazy.filter((file) => read(file).includes(marker))).toHaveLength(1);
  });

  it('should name each script by its final bytes, so that the immutable cache never keeps an old copy under a new name', () => {
    for (const { file } of sizes.allJs.files) {
      const code = read(file).replace(/\n\/\/# sourceMappingURL=\S+$/, '');
      const hash = createHash('sha256').update(code).digest('hex').slice(0, 8).toUpperCase();
      expect(file).toMatch(new RegExp(`-${hash}\\.js$`));
      expect(JSON.parse(read(`${file}.map`)).file).toBe(file);
    }
  });

  it('should write source maps that point at the TypeScript sources', () => {
    const main = sizes.initialJs.files.find((file) => file.file.startsWith('main-'))!.file;
    expect(read(main)).toMatch(new RegExp(`//# sourceMappingURL=${main}\\.map\\s*$`));
    const map = JSON.parse(read(`${main}.map`));
    expect(map.sources).toContain(path.relative(outdir, path.join(ROOT, 'src/start-page.tsx')));
  });

  it('should bundle pusher-js from its TypeScript sources, never its CommonJS entry or prebuilt file', () => {
    const main = sizes.initialJs.files.find((file) => file.file.startsWith('main-'))!.file;
    const sources: string[] = JSON.parse(read(`${main}.map`)).sources;
    const pusher = sources.filter((source) => source.includes('node_modules/pusher-js/'));
    expect(pusher).toContainEqual(expect.stringMatching(/node_modules\/pusher-js\/src\/core\/pusher\.ts$/));
    expect(pusher).toContainEqual(expect.stringMatching(/node_modules\/pusher-js\/src\/runtimes\/web\/runtime\.ts$/));
    expect(pusher.filter((source) => !source.endsWith('.ts'))).toEqual([]);
  });

  it('should keep the JavaScript loaded before the position shows within its gzipped budget', () => {
    expect(sizes.initialJs.gzip).toBeLessThanOrEqual(sizes.budget.initialJsGzip);
  });

  it('should record the gzipped sizes for the benchmark', () => {
    expect(sizes.initialJs.gzip).toBeGreaterThan(0);
    expect(sizes.allJs.gzip).toBeGreaterThan(sizes.initialJs.gzip);
    expect(sizes.withinBudget).toBe(sizes.initialJs.gzip <= sizes.budget.initialJsGzip);
  });
});

describe('build: the guards on lazy modules', () => {
  /** Runs `body` (an async function body given `build`, the build.mjs module, and `esbuild`) in Node and returns its JSON result. */
  const inNode = (body: string) => {
    const script = `const build = await import('./build.mjs'); const esbuild = await import('esbuild');
      const result = await (async () => { ${body} })(); process.stdout.write(JSON.stringify(result));`;
    return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }));
  };
  const bundle = (code: string) => `
    try {
      const result = await esbuild.build({
        stdin: { contents: ${JSON.stringify(code)}, resolveDir: '.', loader: 'ts' }, bundle: true, format: 'esm', write: false, logLevel: 'silent',
        plugins: [build.lazyImports(new Map([['src/effects/perform-replay.ts', 'replay-ABCD1234.js']]))],
      });
      return { code: result.outputFiles[0].text };
    } catch (error) {
      return { errors: error.errors.map((e) => e.text) };
    }`;

  it('should point an import() of a lazy module at its built file', () => {
    const { code } = inNode(bundle("export const load = () => import('./src/effects/perform-replay');"));
    expect(code).toContain('import("./replay-ABCD1234.js")');
    expect(code).not.toContain('createReplayForm');
  });

  it('should refuse a static import of a lazy module, which would pull it back into the page', () => {
    const { errors } = inNode(bundle("export { performReplay } from './src/effects/perform-replay';"));
    expect(errors).toEqual(['src/effects/perform-replay.ts is loaded lazily: import it with import(), not statically']);
  });

  it('should refuse a lazy file that bundles a module the page bundles too', () => {
    const message = inNode(`
      try {
        build.checkNothingShared({ inputs: { 'node_modules/rxjs/x.js': {}, 'src/main.tsx': {} } }, [['replay-1.js', { inputs: { 'node_modules/rxjs/x.js': {}, 'src/effects/perform-replay.ts': {} } }]]);
        return 'no error';
      } catch (error) {
        return error.message;
      }`);
    expect(message).toBe('replay-1.js bundles modules the page bundles too, which would run twice: node_modules/rxjs/x.js');
  });
});
