/**
 * Builds the waiting page with esbuild: minified ES module bundles with content-hashed names
 * and source maps in public/assets/, the CSS beside it, and public/assets/waiting.html (the
 * template with the hashed URLs). The start-up code (`main`) is one file; the view (React, see
 * VIEW_MODULE) is a file of its own, which `main` asks for as soon as it runs, and
 * what the page needs only later (@sentry/browser, see LAZY_MODULES) goes into files of its own,
 * loaded with import() once the position shows or on demand. With `minify`, terser runs over
 * esbuild's output: esbuild bundles and tree-shakes; terser's compressor takes a further ~2.5 KB
 * gzipped off React, which the initial-JavaScript budget needs. Each script is then named by its
 * final bytes. Every asset is written Brotli- and gzip-compressed beside itself too (`.br`,
 * `.gz`), for the server to send whichever the browser accepts. Prints the gzipped size of the
 * JavaScript loaded before the position can show (initial) and of all JavaScript, and writes
 * them to public/assets/size.json.
 *
 *   node build.mjs                                  build and print the sizes
 *   import { buildPage } from './build.mjs'         build from a benchmark, same options
 */
import * as esbuild from 'esbuild';
import { minify as terser } from 'terser';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const root = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** The initial-JavaScript budget, gzipped, in bytes (95 KB of 1024 bytes). */
export const INITIAL_JS_BUDGET = 95 * 1024;

/**
 * The wire budget of the build's own files before the position shows, as the server sends them
 * to a browser that accepts Brotli (the page's HTML as is, the CSS and the initial JavaScript
 * compressed): 95 KB, which leaves 5 KB of the page's 100 KB on the wire for what the build does
 * not decide (HTTP headers, the visitor's config, the queue calls and the WebSocket's frames).
 */
export const WIRE_BUDGET = 95 * 1024;

/**
 * Brotli for text of `bytes.length` bytes, as each asset is written `.br`: at its best quality
 * for what a browser loads; source maps, fetched only by developer tools and megabytes long, at
 * a quality that keeps the build quick.
 */
const brotliOptions = (bytes, name = '') => ({
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: name.endsWith('.map') ? 5 : zlib.constants.BROTLI_MAX_QUALITY,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
  },
});

/** A built file's size as is and as its compressed copies (`compressAssets`) are. */
const sizeOf = async (file) => {
  const [bytes, gzip, brotli] = await Promise.all(['', '.gz', '.br'].map(async (suffix) => (await stat(`${file}${suffix}`)).size));
  return { bytes, gzip, brotli };
};

const total = (sizes) =>
  sizes.reduce((sum, size) => ({ bytes: sum.bytes + size.bytes, gzip: sum.gzip + size.gzip, brotli: sum.brotli + size.brotli }), {
    bytes: 0,
    gzip: 0,
    brotli: 0,
  });

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Files in the assets folder that are not served from it: the pages, which the server sends itself (the waiting page filled for each visitor). */
const NOT_SERVED = /\.html$/;

/** What `compressAssets` writes beside a file. */
const COMPRESSED = /\.(br|gz)$/;

/**
 * Writes each served file of `dir` that has no compressed copies yet compressed beside itself,
 * `<name>.br` (Brotli, see brotliOptions) and `<name>.gz` (gzip, level 9), for the server to send
 * whichever the browser accepts without compressing on each request.
 */
async function compressAssets(dir) {
  const names = await readdir(dir);
  const lacking = names.filter((name) => !NOT_SERVED.test(name) && !COMPRESSED.test(name) && !names.includes(`${name}.br`));
  await Promise.all(
    lacking.map(async (name) => {
      const bytes = await readFile(path.join(dir, name));
      const [br, gz] = await Promise.all([brotli(bytes, brotliOptions(bytes, name)), gzip(bytes, { level: 9 })]);
      await Promise.all([writeFile(path.join(dir, `${name}.br`), br), writeFile(path.join(dir, `${name}.gz`), gz)]);
    }),
  );
}

/** The outputs an entry loads before it runs: itself and its static imports, transitively. */
function staticClosure(metafile, entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of metafile.outputs[file].imports) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  visit(entry);
  return [...seen];
}

/** The content hash a built file is named by (`main-<hash>.js`): 8 characters of its final bytes' SHA-256. */
const contentHash = (code) => createHash('sha256').update(code).digest('hex').slice(0, 8).toUpperCase();

/**
 * How terser writes the view (React): headed by V8's explicit compile hint, which has every function
 * of the file compiled with the file, while it arrives, instead of each on its first call, most of
 * them in React's first render, on the way to the position (about 0.15 s less on a slow phone).
 * Not the start-up code: the hint's 23 bytes gzipped would take it past the initial-JavaScript
 * budget for less (it runs while the view still arrives).
 */
const EAGER_FORMAT = { comments: false, preamble: '//# allFunctionsCalledOnLoad' };

/**
 * Writes one esbuild build's in-memory outputs and returns the file name each was written under
 * (esbuild's output path → name). With `minify`, each JavaScript file goes through terser first,
 * its source map chained to esbuild's so that it still points at the TypeScript sources, those
 * `eager` names (by esbuild's output path) written with V8's compile hint (EAGER_FORMAT). Each
 * JavaScript file is then named by its final bytes: esbuild's [hash] covers only what esbuild
 * wrote, so a change of terser or its settings would keep a name for new bytes, which browsers
 * holding the year-long immutable copy of /assets/ would never fetch. The CSS keeps its name.
 */
async function writeOutputs(files, minify, eager = () => false) {
  const byPath = new Map(files.map((file) => [file.path, file]));
  const names = new Map();
  for (const file of files) {
    // A script's source map and licence file are written with it, under its new name.
    if (byPath.has(file.path.replace(/\.(map|LEGAL\.txt)$/, '')) && /\.js\.(map|LEGAL\.txt)$/.test(file.path)) continue;
    if (!file.path.endsWith('.js')) {
      await writeFile(file.path, file.contents);
      names.set(file.path, path.basename(file.path));
      continue;
    }
    let code = file.text.replace(/\/\/# sourceMappingURL=\S+\s*$/, '').trimEnd();
    let map = byPath.get(`${file.path}.map`).text;
    if (minify) {
      ({ code, map } = await terser(code, {
        module: true,
        ecma: 2020,
        // A third pass still finds ~0.1 KB gzipped; a fourth finds nothing more.
        compress: { passes: 3 },
        format: eager(file.path) ? EAGER_FORMAT : { comments: false },
        sourceMap: { content: map },
      }));
    }
    const name = path.basename(file.path).replace(/-[A-Z0-9]+\.js$/, `-${contentHash(code)}.js`);
    const at = (fileName) => path.join(path.dirname(file.path), fileName);
    await writeFile(at(name), `${code}\n//# sourceMappingURL=${name}.map`);
    await writeFile(at(`${name}.map`), JSON.stringify({ ...JSON.parse(map), file: name }));
    const legal = byPath.get(`${file.path}.LEGAL.txt`);
    if (legal) await writeFile(at(`${name}.LEGAL.txt`), legal.contents);
    names.set(file.path, name);
  }
  return names;
}

/** Replaces `from` in `html` with `to`, requiring exactly one occurrence. */
function replaceOnce(html, from, to) {
  const count = html.split(from).length - 1;
  if (count !== 1) throw new Error(`public/index.html must contain ${from} exactly once (found ${count})`);
  return html.replace(from, () => to);
}

/** pusher-js's own package folder. */
const PUSHER_DIR = path.dirname(require.resolve('pusher-js/package.json'));

/**
 * Where pusher-js's sources import bare paths from (`runtime`, `core/…`, `isomorphic/…`): its
 * web build's webpack `resolve.modules` (webpack/config.shared.js, then config.web.js).
 */
const PUSHER_MODULE_DIRS = ['src', 'src/runtimes', 'src/runtimes/web'].map((dir) => path.join(PUSHER_DIR, dir));

/**
 * The file an extensionless path names, tried as webpack's `resolve.extensions` for pusher-js
 * does: TypeScript first. esbuild alone prefers `.js` inside node_modules, which would take
 * src/core/pusher.js (a CommonJS re-export of pusher.ts, webpack's entry) for `./pusher`.
 */
const pusherFile = (base) => ['.ts', '.js', '/index.ts'].map((ext) => base + ext).find((file) => existsSync(file));

/** The globals pusher-js's web build defines (its webpack DefinePlugin, hosting_config.js defaults, dist/web/pusher.min.js's values). */
const PUSHER_DEFINES = {
  global: 'window',
  RUNTIME: '"web"',
  VERSION: JSON.stringify(require('pusher-js/package.json').version),
  CDN_HTTP: '"http://js.pusher.com"',
  CDN_HTTPS: '"https://js.pusher.com"',
  DEPENDENCY_SUFFIX: '""',
};

/**
 * pusher-js features the page never uses, each a module that pusher-js builds in whatever the
 * page does (~2 KB gzipped): user sign-in (`pusher.user`, built in the
 * constructor), presence channels and private-encrypted channels (also the only users of the
 * @stablelib modules, development dependencies of pusher-js that are not installed). Each is
 * replaced by a stub that says so if ever reached: the page signs no user in and subscribes to
 * public and private channels only.
 */
const unused = (what) => `throw new Error(${JSON.stringify(`${what} are not part of the waiting page's build of pusher-js`)})`;
export const PUSHER_STUBS = {
  'src/core/user.ts': `export default class UserFacade { signin() { ${unused('User sign-in and watchlists')} } }`,
  'src/core/channels/presence_channel.ts': `export default class PresenceChannel { constructor() { ${unused('Presence channels')} } }`,
  'src/core/channels/encrypted_channel.ts': `export default class EncryptedChannel { constructor() { ${unused('Private-encrypted channels')} } }`,
};

/**
 * An esbuild plugin that bundles pusher-js from its TypeScript sources, resolved the way its own
 * web build resolves them, instead of its prebuilt UMD file: as ES modules in the page's scope,
 * esbuild and terser shorten and share far more than they can inside one opaque CommonJS module
 * (~1 KB gzipped less), and the features in PUSHER_STUBS are left out.
 * Each source is compiled as pusher-js's tsconfig.json compiles it (target ES6, so class fields
 * are assigned, not defined); esbuild does not read a tsconfig.json inside node_modules.
 */
function pusherFromSource() {
  const sources = path.join(PUSHER_DIR, 'src') + path.sep;
  return {
    name: 'pusher-from-source',
    setup(build) {
      build.onResolve({ filter: /^pusher-js$/ }, () => ({ path: path.join(PUSHER_DIR, 'src/core/pusher.ts') }));
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!args.path.startsWith(sources)) return undefined;
        const stub = PUSHER_STUBS[path.relative(PUSHER_DIR, args.path).split(path.sep).join('/')];
        if (stub) return { contents: stub, loader: 'js' };
        const { code } = await esbuild.transform(await readFile(args.path, 'utf8'), {
          loader: 'ts',
          tsconfigRaw: { compilerOptions: { useDefineForClassFields: false } },
          // Inline, so that the page's source map still leads to the TypeScript file.
          sourcemap: 'inline',
          sourcefile: path.basename(args.path),
        });
        return { contents: code, loader: 'js' };
      });
      build.onResolve({ filter: /^(\.|[a-z])/ }, (args) => {
        if (!args.importer.startsWith(sources)) return undefined;
        const bases = args.path.startsWith('.') ? [path.resolve(args.resolveDir, args.path)] : PUSHER_MODULE_DIRS.map((dir) => path.join(dir, args.path));
        for (const base of bases) {
          const file = pusherFile(base);
          if (file) return { path: file };
        }
        return undefined;
      });
    },
  };
}

/**
 * Modules the page loads with `import()` once the position shows, or on demand. Each is bundled
 * on its own, before the page, into `<name>-<hash>.js`, and the page's `import()` of it is
 * pointed at that file. One esbuild build with `splitting` would do the same, but it also moves
 * its runtime helpers and any module both sides use (all of rxjs, even for a side that uses none
 * of it) into shared chunks that the page imports statically: more files and bytes before the
 * position shows. Built apart, a module must import nothing the page also bundles (else it would
 * run a second copy, e.g. of rxjs), which `checkNothingShared` enforces.
 */
const LAZY_MODULES = {
  sentry: 'src/adapters/sentry.ts',
  replay: 'src/effects/perform-replay.ts',
  'config-problem': 'src/view/config-problem.ts',
  'lost-place': 'src/view/lost-place.ts',
  english: 'src/i18n/english.ts',
  controls: 'src/view/controls.ts',
  'qr-code': 'src/view/qr-code.ts',
  event: 'src/view/event-view.ts',
  'bot-check': 'bot-check/solve.ts',
};

/**
 * The realtime client (pusher-js), a lazy module built apart from LAZY_MODULES: only it bundles
 * pusher-js, from its sources (`pusherFromSource`), with pusher-js's defines, which would rewrite
 * @sentry/browser's `global`. Loaded once the view has arrived: the first position comes from the
 * preloaded queue_info, not from the connection.
 */
const REALTIME_MODULE = { realtime: 'src/adapters/pusher-client.ts' };

/**
 * Web Workers, each built on its own before the lazy modules (a worker runs in a realm of its own,
 * so it may bundle what the page bundles too). Each lazy module is given the URL of each, under
 * /assets/, as the constant named here.
 */
const WORKERS = {
  'altcha-worker': { source: 'bot-check/worker.ts', define: 'ALTCHA_WORKER_URL' },
};

/**
 * The view: React and the components that render the status. Built apart like the lazy modules
 * (it is handed the status stream and its texts, and imports no rxjs), so that the start-up code
 * (`main`) stays small and runs first: it asks for the first queue_info without waiting for React. The HTML preloads it beside the start-up code. The
 * position needs it, so it counts as JavaScript loaded before the position shows.
 */
const VIEW_MODULE = { view: 'src/view/mount.tsx' };

/**
 * Written into the page's HTML as a classic inline script (the server's policy allows it by its
 * hash): it builds the Intl formatters of the page's language while the scripts are on their way,
 * so that loading the locale data is not left between their arrival and the position.
 */
const WARM_INTL = 'src/warm-intl.ts';

/** `source` bundled as one script to inline in a page: no imports, nothing that ends its `<script>` element. */
async function inlineScript(source, minify) {
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [source],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify,
    write: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const code = result.outputFiles[0].text.trim();
  if (/<\/script|<!--/i.test(code)) throw new Error(`${source} bundles text that would end its inline <script> element`);
  return code;
}

/** The extensions under which an `import()` specifier without one may name a lazy module. */
const RESOLVED_EXTENSIONS = ['', '.ts', '.tsx'];

/**
 * An esbuild plugin that leaves each `import()` of a lazy module to the browser, at the file it
 * was built into (`files`: source path → file name). A static import of one is an error: it
 * would pull the module back into the page.
 */
export function lazyImports(files) {
  return {
    name: 'lazy-imports',
    setup(build) {
      build.onResolve({ filter: /^\./ }, (args) => {
        const resolved = path.relative(root, path.resolve(args.resolveDir, args.path)).split(path.sep).join('/');
        const source = RESOLVED_EXTENSIONS.map((ext) => resolved + ext).find((candidate) => files.has(candidate));
        if (!source) return undefined;
        if (args.kind != 'dynamic-import') return { errors: [{ text: `${source} is loaded lazily: import it with import(), not statically` }] };
        return { path: `./${files.get(source)}`, external: true };
      });
    },
  };
}

/** Throws when a lazy output bundles a module that the page bundles too (a second copy at run time). */
export function checkNothingShared(pageOutput, lazyOutputs) {
  const pageInputs = new Set(Object.keys(pageOutput.inputs));
  for (const [file, output] of lazyOutputs) {
    const shared = Object.keys(output.inputs).filter((input) => pageInputs.has(input));
    if (shared.length) throw new Error(`${file} bundles modules the page bundles too, which would run twice: ${shared.join(', ')}`);
  }
}

/**
 * Builds the page into `outdir` and returns the size figures (also written to size.json).
 * Options: `outdir` (default public/assets), `minify` (default true), `log` (print, default true).
 */
export async function buildPage({ outdir = path.join(root, 'public/assets'), minify = true, log = true } = {}) {
  // Built beside outdir (same depth, so the same source-map paths), then swapped in: a server or
  // test reading outdir meanwhile finds the old page or the new one, not a half-written folder.
  const building = `${outdir}.building-${process.pid}`;
  let sizes;
  try {
    await rm(building, { recursive: true, force: true });
    await mkdir(building, { recursive: true });
    const workers = await buildWorkers(building, minify);
    sizes = await buildInto(building, minify, workers);
    await buildConsole(building, minify);
    sizes.elements = await buildElementsInto(building, minify, workers.workerUrls);
    await buildVerify(building, minify, sizes.css.files[0].file);
    await compressAssets(building);
    await rm(outdir, { recursive: true, force: true });
    await rename(building, outdir);
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  if (log) {
    const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
    console.log(`waiting page built into ${path.relative(root, outdir) || '.'}`);
    const when = (file) => (sizes.initialJs.files.some((initial) => initial.file == file.file) ? 'initial' : 'lazy');
    for (const file of sizes.allJs.files) console.log(`  ${file.file.padEnd(28)} ${kb(file.bytes).padStart(9)} ${kb(file.gzip).padStart(9)} gz  ${when(file)}`);
    console.log(
      `initial JS (before the position shows): ${kb(sizes.initialJs.gzip)} gz (${sizes.initialJs.gzip} bytes; budget ${kb(INITIAL_JS_BUDGET)})${sizes.withinBudget ? '' : ' — OVER BUDGET'}`,
    );
    console.log(`all JS: ${kb(sizes.allJs.gzip)} gz; CSS: ${kb(sizes.css.gzip)} gz`);
    const { wire } = sizes;
    console.log(
      `on the wire before the position shows (HTML as is, CSS and initial JS as Brotli): ${kb(wire.total)} (budget ${kb(wire.budget)})${wire.withinBudget ? '' : ' — OVER BUDGET'}`,
    );
    const { elements } = sizes;
    console.log(
      `<waiting-room-status> and heldFetch(): ${elements.files.map((file) => file.file).join(' → ')}: ${kb(elements.gzip)} gz (budget ${kb(ELEMENTS_JS_BUDGET)})${elements.withinBudget ? '' : ' — OVER BUDGET'}`,
    );
  }
  return sizes;
}

/** What the page's builds and the console's share: minified ES modules with hashed names and linked source maps, into `building`. */
function esbuildOptions(building, minify) {
  return {
    absWorkingDir: root,
    outdir: building,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify,
    sourcemap: 'linked',
    metafile: true,
    write: false,
    entryNames: '[name]-[hash]',
    jsx: 'automatic',
    // rxjs's ES2015 build is smaller than its ES5 default.
    conditions: ['es2015'],
    define: { 'process.env.NODE_ENV': minify ? '"production"' : '"development"' },
    drop: minify ? ['debugger'] : [],
    // Licences go to *.LEGAL.txt files beside the bundles instead of into the bytes loaded.
    legalComments: 'external',
    logLevel: 'warning',
  };
}

/**
 * Builds the Web Workers (`WORKERS`) into `building`, and answers their outputs, names and URLs (as
 * esbuild defines, for the modules that start them).
 */
async function buildWorkers(building, minify) {
  const workers = await esbuild.build({
    ...esbuildOptions(building, minify),
    entryPoints: Object.fromEntries(Object.entries(WORKERS).map(([name, { source }]) => [name, source])),
  });
  const workerNames = await writeOutputs(workers.outputFiles, minify);
  const workerUrls = Object.fromEntries(
    Object.entries(workers.metafile.outputs)
      .filter(([, output]) => output.entryPoint)
      .map(([file, output]) => {
        const [, worker] = Object.entries(WORKERS).find(([, { source }]) => source === output.entryPoint);
        return [worker.define, JSON.stringify(`/assets/${workerNames.get(path.join(root, file))}`)];
      }),
  );
  return { workers, workerNames, workerUrls };
}

/** The path of the output of an esbuild build's `entry` (as its in-memory output files name it). */
const outputOf = (result, entry) =>
  path.join(
    root,
    Object.keys(result.metafile.outputs).find((file) => result.metafile.outputs[file].entryPoint === entry),
  );

/** Builds the page into the empty folder `building`, with the Web Workers already built there, and returns the size figures, also written there. */
async function buildInto(building, minify, { workers, workerNames, workerUrls }) {
  const options = esbuildOptions(building, minify);
  const lazy = await esbuild.build({ ...options, entryPoints: { ...LAZY_MODULES, ...VIEW_MODULE }, define: { ...options.define, ...workerUrls } });
  const realtime = await esbuild.build({
    ...options,
    entryPoints: REALTIME_MODULE,
    define: { ...options.define, ...PUSHER_DEFINES },
    plugins: [pusherFromSource()],
  });
  const lazyNames = new Map([
    ...(await writeOutputs(lazy.outputFiles, minify, (file) => file === outputOf(lazy, VIEW_MODULE.view))),
    ...(await writeOutputs(realtime.outputFiles, minify)),
  ]);
  const nameOf = (names, file) => names.get(path.join(root, file));
  const lazyOutputs = Object.entries({ ...lazy.metafile.outputs, ...realtime.metafile.outputs }).filter(([, output]) => output.entryPoint);
  const lazyFiles = new Map(lazyOutputs.map(([file, output]) => [output.entryPoint, nameOf(lazyNames, file)]));
  const page = await esbuild.build({
    ...options,
    entryPoints: { main: 'src/main.tsx', waiting: 'public/waiting.css' },
    plugins: [lazyImports(lazyFiles)],
  });
  const pageNames = await writeOutputs(page.outputFiles, minify);
  const metafile = { outputs: { ...workers.metafile.outputs, ...lazy.metafile.outputs, ...realtime.metafile.outputs, ...page.metafile.outputs } };
  const outputs = Object.keys(metafile.outputs);
  // Every output is written straight into the folder, under the name writeOutputs gave it.
  const relative = (file) => nameOf(lazyNames, file) ?? nameOf(pageNames, file) ?? nameOf(workerNames, file);
  const entryOf = (source) => outputs.find((file) => metafile.outputs[file].entryPoint === source);
  const mainJs = entryOf('src/main.tsx');
  const css = entryOf('public/waiting.css');
  checkNothingShared(metafile.outputs[mainJs], lazyOutputs);
  const startUp = staticClosure(metafile, mainJs);
  const initial = [...startUp, entryOf(VIEW_MODULE.view)];
  const js = outputs.filter((file) => file.endsWith('.js'));
  const measure = async (files) => {
    const each = await Promise.all(files.map(async (file) => ({ file: relative(file), ...(await sizeOf(path.join(building, relative(file)))) })));
    return { ...total(each), files: each };
  };

  const template = await readFile(path.join(root, 'public/index.html'), 'utf8');
  if (template.split('id="waiting-room-config"').length !== 2) throw new Error('public/index.html must hold exactly one #waiting-room-config element');
  // Everything the position needs is asked for as the head is read, the start-up code first:
  // the first queue_info's answer is preloaded too (server/http/page.ts), so the position waits only
  // for these files, not for a round trip after the start-up code has run to ask for the view.
  const preloads = [...startUp, entryOf(VIEW_MODULE.view)].map((file) => `<link rel="modulepreload" href="/assets/${relative(file)}">\n`).join('');
  let html = replaceOnce(
    template,
    '<link rel="stylesheet" href="waiting.css">',
    `<link rel="stylesheet" href="/assets/${relative(css)}">\n${preloads}`.trimEnd(),
  );
  html = replaceOnce(
    html,
    '<script type="module" src="main.js"></script>',
    `<script>${await inlineScript(WARM_INTL, minify)}</script>\n<script type="module" src="/assets/${relative(mainJs)}"></script>`,
  );
  await writeFile(path.join(building, 'waiting.html'), html);
  await compressAssets(building);

  const sizes = {
    budget: { initialJsGzip: INITIAL_JS_BUDGET },
    initialJs: await measure(initial),
    allJs: await measure(js),
    css: await measure([css]),
    html: 'waiting.html',
    compression: 'gzip level 9; brotli quality 11, text mode (as the .gz and .br files beside each asset)',
  };
  sizes.withinBudget = sizes.initialJs.gzip <= INITIAL_JS_BUDGET;
  const htmlBytes = Buffer.byteLength(html);
  const wireBytes = htmlBytes + sizes.css.brotli + sizes.initialJs.brotli;
  sizes.wire = {
    budget: WIRE_BUDGET,
    html: htmlBytes,
    css: sizes.css.brotli,
    initialJs: sizes.initialJs.brotli,
    total: wireBytes,
    withinBudget: wireBytes <= WIRE_BUDGET,
  };
  await writeFile(path.join(building, 'size.json'), JSON.stringify(sizes, null, 2) + '\n');
  await compressAssets(building);
  return sizes;
}

/**
 * Builds the operator console into `building`: its own entry (`src/admin/main.tsx`), script and
 * CSS (uPlot's with its own), and `admin.html`, which `GET /admin/` serves. Nothing of it is
 * loaded by the waiting page, nor counted in its sizes: a visitor never fetches it.
 */
async function buildConsole(building, minify) {
  const result = await esbuild.build({ ...esbuildOptions(building, minify), entryPoints: { admin: 'src/admin/main.tsx' } });
  // esbuild's minifier alone: terser's further 3.5 % (gzipped) would cost the build more time than
  // all the page's terser passes together, for a page that operators load, with no budget.
  const names = await writeOutputs(result.outputFiles, false);
  const [js, output] = Object.entries(result.metafile.outputs).find(([, each]) => each.entryPoint === 'src/admin/main.tsx');
  const nameOf = (file) => names.get(path.join(root, file));
  let html = await readFile(path.join(root, 'public/admin.html'), 'utf8');
  html = replaceOnce(html, '<link rel="stylesheet" href="admin.css">', `<link rel="stylesheet" href="/assets/${nameOf(output.cssBundle)}">`);
  html = replaceOnce(html, '<script type="module" src="admin.js"></script>', `<script type="module" src="/assets/${nameOf(js)}"></script>`);
  await writeFile(path.join(building, 'admin.html'), html);
}

/** The second front end's budget: its loader and its bundle, gzipped, in bytes. */
export const ELEMENTS_JS_BUDGET = 32 * 1024;

/** The stable address pages load the second front end from; it imports the content-hashed bundle. */
export const ELEMENTS_ENTRY = 'waiting-room.js';

/**
 * Builds the second front end (`elements/`: `<waiting-room-status>` and `heldFetch()`, no React)
 * into `building`: one content-hashed bundle, `waiting-room-<hash>.js`, with pusher-js built from
 * its sources as the page's is, and `waiting-room.js`, a one-line loader that re-exports it. Pages
 * load the loader, whose name never changes (served revalidated), and browsers keep the bundle
 * for good (hashed: immutable). Returns the gzipped size of both, as loaded, against its budget;
 * it is written to `elements-size.json` too.
 */
async function buildElementsInto(building, minify, workerUrls) {
  // heldFetch() solves the bot check with the page's worker (the same file when the page is built too).
  workerUrls ??= (await buildWorkers(building, minify)).workerUrls;
  const result = await esbuild.build({
    ...esbuildOptions(building, minify),
    entryPoints: { 'waiting-room': 'elements/index.ts' },
    define: { ...esbuildOptions(building, minify).define, ...PUSHER_DEFINES, ...workerUrls },
    plugins: [pusherFromSource()],
  });
  const names = await writeOutputs(result.outputFiles, minify);
  const [output] = Object.keys(result.metafile.outputs).filter((file) => result.metafile.outputs[file].entryPoint === 'elements/index.ts');
  const bundle = names.get(path.join(root, output));
  await writeFile(path.join(building, ELEMENTS_ENTRY), `export * from './${bundle}';\n`);
  // Measured as served: the .gz and .br copies beside each file.
  await compressAssets(building);
  const files = await Promise.all([ELEMENTS_ENTRY, bundle].map(async (file) => ({ file, ...(await sizeOf(path.join(building, file))) })));
  const sizes = { ...total(files), files, budget: { gzip: ELEMENTS_JS_BUDGET } };
  sizes.withinBudget = sizes.gzip <= ELEMENTS_JS_BUDGET;
  await writeFile(path.join(building, 'elements-size.json'), JSON.stringify(sizes, null, 2) + '\n');
  return sizes;
}

/** Builds only the second front end into `outdir` (created if missing) and returns its sizes. */
export async function buildElements({ outdir = path.join(root, 'public/assets'), minify = true } = {}) {
  await mkdir(outdir, { recursive: true });
  return buildElementsInto(outdir, minify);
}

/**
 * Builds the page that verifies an event's draw into `building`: its own entry
 * (`src/verify/main.ts`) and `verify.html`, which `GET /events/{id}/verify` serves, with the waiting
 * page's style sheet (`css`, its built name). Like the console, nothing of it is loaded by the
 * waiting page or counted in its sizes.
 */
async function buildVerify(building, minify, css) {
  const result = await esbuild.build({ ...esbuildOptions(building, minify), entryPoints: { verify: 'src/verify/main.ts' } });
  const names = await writeOutputs(result.outputFiles, minify);
  const [js] = Object.entries(result.metafile.outputs).find(([, each]) => each.entryPoint === 'src/verify/main.ts');
  let html = await readFile(path.join(root, 'public/verify.html'), 'utf8');
  html = replaceOnce(html, '<link rel="stylesheet" href="waiting.css">', `<link rel="stylesheet" href="/assets/${css}">`);
  html = replaceOnce(
    html,
    '<script type="module" src="verify.js"></script>',
    `<script type="module" src="/assets/${names.get(path.join(root, js))}"></script>`,
  );
  await writeFile(path.join(building, 'verify.html'), html);
}

// Over budget is reported, not fatal: `npm start` builds first and must still start.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await buildPage();
}
