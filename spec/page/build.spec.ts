import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import zlib from 'node:zlib';
import { ENGLISH } from '../../locales';
import { builtAssetsDir } from '../support/run-build';

const ROOT = path.join(__dirname, '../..');

/** A static import of another built file, as esbuild and terser write it (`import"./x.js"`, `}from"./x.js"`). */
const STATIC_IMPORT = /(?:\bimport\s*|\bfrom\s*)"\.\/([^"]+\.js)"/g;

/** An `import()` of another built file. */
const DYNAMIC_IMPORT = /\bimport\("\.\/([^"]+\.js)"\)/g;

/** Markers of the libraries, as their minified code still spells them. */
const REACT = 'react.transitional.element';
const RXJS = 'object unsubscribed';
const PUSHER = 'pusher:connection_established';

interface Measured {
  readonly gzip: number;
  readonly files: ReadonlyArray<{ readonly file: string; readonly gzip: number }>;
}

describe('build: the production bundle', () => {
  let outdir: string;
  let sizes: {
    initialJs: Measured;
    allJs: Measured;
    css: Measured;
    budget: { initialJsGzip: number };
    withinBudget: boolean;
    wire: { budget: number; html: number; css: number; initialJs: number; total: number; withinBudget: boolean };
  };

  beforeAll(() => {
    // The build `npm start` runs (`buildPage()`), as the global set-up made it for this run.
    outdir = builtAssetsDir();
    sizes = JSON.parse(readFileSync(path.join(outdir, 'size.json'), 'utf8'));
  });

  const read = (file: string) => readFileSync(path.join(outdir, file), 'utf8');

  it('should write waiting.html with hashed /assets/ URLs and exactly one empty config element', () => {
    const html = read('waiting.html');
    expect(html).toMatch(/<link rel="stylesheet" href="\/assets\/waiting-[A-Z0-9]+\.css">/);
    expect(html).toMatch(/<script type="module" src="\/assets\/main-[A-Z0-9]+\.js"><\/script>/);
    expect(html.split('<script id="waiting-room-config" type="application/json">{}</script>')).toHaveLength(2);
    expect(html).toContain('Finding your place in line…');
  });

  it('should keep every text out of the JavaScript loaded before the position shows: they come with the page config', () => {
    const initial = sizes.initialJs.files.map((file) => read(file.file)).join('\n');
    for (const key of ['page.heading', 'page.estimatedSoon', 'lost.heading', 'notify.offer'] as const) {
      expect(initial).not.toContain(ENGLISH[key]);
    }
  });

  const mainFile = () => sizes.initialJs.files.find((file) => file.file.startsWith('main-'))!.file;
  const viewFile = () => sizes.initialJs.files.find((file) => file.file.startsWith('view-'))!.file;
  const realtimeFile = () => sizes.allJs.files.find((file) => file.file.startsWith('realtime-'))!.file;

  it('should measure as initial exactly the files waiting.html loads or preloads (the view among them) and the files they import statically', () => {
    const html = read('waiting.html');
    const loaded = [...html.matchAll(/<(?:script type="module" src|link rel="modulepreload" href)="\/assets\/([^"]+\.js)"/g)].map((match) => match[1]);
    const closure = new Set<string>();
    const visit = (file: string) => {
      if (closure.has(file)) return;
      closure.add(file);
      for (const match of read(file).matchAll(STATIC_IMPORT)) visit(match[1]);
    };
    loaded.forEach(visit);
    expect(closure).toContain(viewFile());
    expect(sizes.initialJs.files.map((file) => file.file).sort()).toEqual([...closure].sort());
  });

  it('should load the start-up code as one file, and the view and each lazy module with import() as one more file that imports nothing, and workers only from those', () => {
    const initial = sizes.initialJs.files.map((file) => file.file);
    expect(initial).toEqual([expect.stringMatching(/^main-[A-Z0-9]+\.js$/), expect.stringMatching(/^view-[A-Z0-9]+\.js$/)]);
    const imported = [...read(mainFile()).matchAll(DYNAMIC_IMPORT)].map((match) => match[1]);
    expect(imported).toContain(viewFile());
    expect(imported.length).toBeGreaterThan(1);
    const workers = imported.flatMap((file) => [...read(file).matchAll(/"\/assets\/([^"]+-worker-[A-Z0-9]+\.js)"/g)].map((match) => match[1]));
    expect(workers).toEqual([expect.stringMatching(/^altcha-worker-[A-Z0-9]+\.js$/)]);
    expect(read(mainFile())).not.toContain(workers[0]);
    expect(sizes.allJs.files.map((file) => file.file).sort()).toEqual([mainFile(), ...imported, ...workers].sort());
    for (const file of [...imported, ...workers]) expect([...read(file).matchAll(STATIC_IMPORT)]).toEqual([]);
  });

  it('should preload in the head of waiting.html the start-up code first, then the view, and nothing loaded later', () => {
    const html = read('waiting.html');
    const head = html.slice(0, html.indexOf('</head>'));
    const preloaded = [...head.matchAll(/<link rel="modulepreload" href="\/assets\/([^"]+\.js)">/g)].map((match) => match[1]);
    expect(preloaded).toEqual([mainFile(), viewFile()]);
  });

  it('should keep React out of the start-up code, and rxjs and pusher-js out of the view', () => {
    const main = read(mainFile());
    const view = read(viewFile());
    expect([main.includes(REACT), main.includes(RXJS)]).toEqual([false, true]);
    expect([view.includes(REACT), view.includes(RXJS), view.includes(PUSHER)]).toEqual([true, false, false]);
  });

  it('should keep pusher-js out of the JavaScript loaded before the position shows, in a lazy file without rxjs', () => {
    const initial = sizes.initialJs.files.map((file) => file.file);
    expect(initial.filter((file) => read(file).includes(PUSHER))).toEqual([]);
    expect(initial).not.toContain(realtimeFile());
    const realtime = read(realtimeFile());
    expect([realtime.includes(PUSHER), realtime.includes(RXJS), realtime.includes(REACT)]).toEqual([true, false, false]);
  });

  it.each([
    ['@sentry/browser', '__SENTRY__'],
    ['the replay code (its hidden form)', '"_method"'],
    ['the config-problem view', 'wr-problem'],
    ['the lost-place view', 'wr-lost'],
    ['English, for a server that sends no language', 'Finding your place in line'],
    ['the language switch and the turn notifications', 'waiting-room-turn'],
    ["a scheduled event's view", 'wr-prequeue'],
    ['the bot check’s solver', 'The bot check found no solution.'],
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
    const main = mainFile();
    expect(read(main)).toMatch(new RegExp(`//# sourceMappingURL=${main}\\.map\\s*$`));
    const map = JSON.parse(read(`${main}.map`));
    expect(map.sources).toContain(path.relative(outdir, path.join(ROOT, 'src/start-page.ts')));
    expect(JSON.parse(read(`${viewFile()}.map`)).sources).toContain(path.relative(outdir, path.join(ROOT, 'src/view/WaitingRoom.tsx')));
  });

  it("should head the view, and only the view, with V8's compile hint, its source map a line lower", () => {
    const HINT = '//# allFunctionsCalledOnLoad\n';
    expect(read(viewFile()).startsWith(HINT)).toBe(true);
    expect(JSON.parse(read(`${viewFile()}.map`)).mappings).toMatch(/^;[^;]/);
    for (const { file } of sizes.allJs.files.filter((each) => each.file !== viewFile())) expect(read(file)).not.toContain(HINT);
  });

  it('should write into waiting.html, before the start-up code, one inline script that builds the Intl formatters of <html lang> in a task of its own', () => {
    const html = read('waiting.html');
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((found) => found[1]);
    expect(inline).toHaveLength(1);
    expect(html.indexOf('<script>')).toBeLessThan(html.indexOf('<script type="module"'));
    const built: string[] = [];
    const tasks: (() => void)[] = [];
    const intl = (name: string) =>
      class {
        constructor(locale: string) {
          built.push(`${name} ${locale}`);
          if (locale === 'nope!') throw new RangeError('Incorrect locale information provided');
        }
        select = () => 'other';
      };
    const fakeIntl = { NumberFormat: intl('NumberFormat'), DateTimeFormat: intl('DateTimeFormat'), PluralRules: intl('PluralRules') };
    const run = (lang: string) => {
      vm.runInNewContext(inline[0], { document: { documentElement: { lang } }, setTimeout: (task: () => void) => tasks.push(task), Intl: fakeIntl });
      expect(built).toEqual([]);
      tasks.splice(0).forEach((task) => task());
    };
    run('fr');
    expect(built.sort()).toEqual(['DateTimeFormat fr', 'NumberFormat fr', 'PluralRules fr']);
    built.length = 0;
    expect(() => run('nope!')).not.toThrow();
  });

  it('should bundle pusher-js from its TypeScript sources, never its CommonJS entry or prebuilt file', () => {
    const sources: string[] = JSON.parse(read(`${realtimeFile()}.map`)).sources;
    const pusher = sources.filter((source) => source.includes('node_modules/pusher-js/'));
    expect(pusher).toContainEqual(expect.stringMatching(/node_modules\/pusher-js\/src\/core\/pusher\.ts$/));
    expect(pusher).toContainEqual(expect.stringMatching(/node_modules\/pusher-js\/src\/runtimes\/web\/runtime\.ts$/));
    expect(pusher.filter((source) => !source.endsWith('.ts'))).toEqual([]);
  });

  it("should leave out pusher-js's user sign-in, presence and private-encrypted channels, saying so if ever reached", () => {
    const realtime = read(realtimeFile());
    for (const feature of ['User sign-in and watchlists', 'Presence channels', 'Private-encrypted channels']) {
      expect(realtime).toContain(`${feature} are not part of the waiting page's build of pusher-js`);
    }
    for (const marker of ['pusher:signin_success', 'pusher_internal:member_added', 'Unexpected format for encrypted event']) {
      expect([marker, realtime.includes(marker)]).toEqual([marker, false]);
    }
  });

  it('should keep the JavaScript loaded before the position shows within its gzipped budget', () => {
    expect(sizes.initialJs.gzip).toBeLessThanOrEqual(sizes.budget.initialJsGzip);
  });

  it('should keep what the build sends before the position shows within its wire budget, as the server sends it', () => {
    const brotli = (file: string) => readFileSync(path.join(outdir, `${file}.br`)).length;
    const initialJs = sizes.initialJs.files.reduce((sum, file) => sum + brotli(file.file), 0);
    const css = read('waiting.html').match(/href="\/assets\/(waiting-[A-Z0-9]+\.css)"/)![1];
    expect(sizes.wire).toMatchObject({ html: Buffer.byteLength(read('waiting.html')), css: brotli(css), initialJs });
    expect(sizes.wire.total).toBe(sizes.wire.html + sizes.wire.css + sizes.wire.initialJs);
    expect(sizes.wire.total).toBeLessThanOrEqual(sizes.wire.budget);
  });

  it('should write every asset Brotli- and gzip-compressed beside itself, each decompressing to its bytes', () => {
    const names = readdirSync(outdir);
    const pages = names.filter((name) => name.endsWith('.html'));
    const assets = names.filter((name) => !/\.(br|gz)$/.test(name) && !pages.includes(name));
    expect(assets.length).toBeGreaterThan(10);
    for (const name of assets) {
      const bytes = readFileSync(path.join(outdir, name));
      expect([name, zlib.brotliDecompressSync(readFileSync(path.join(outdir, `${name}.br`))).equals(bytes)]).toEqual([name, true]);
      expect([name, zlib.gunzipSync(readFileSync(path.join(outdir, `${name}.gz`))).equals(bytes)]).toEqual([name, true]);
    }
    // Nothing else: no copy of a copy, and no copy of a page the server sends itself (the waiting page filled per visitor).
    expect(pages).toContain('waiting.html');
    expect(names.sort()).toEqual([...assets, ...assets.map((name) => `${name}.br`), ...assets.map((name) => `${name}.gz`), ...pages].sort());
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
