/**
 * Builds the waiting page with esbuild: a minified ES module bundle with content-hashed names
 * and source maps in public/assets/, the CSS beside it, and public/assets/waiting.html (the
 * template with the hashed URLs). The page is one file; what it needs only later (@sentry/browser,
 * see LAZY_MODULES) goes into files of its own, loaded with import() after the first paint or on
 * demand. With `minify`, terser runs over esbuild's output: esbuild bundles and tree-shakes;
 * terser's compressor takes a further ~2.5 KB gzipped off React, which the initial-JavaScript
 * budget needs. Each script is then named by its final bytes. Prints the gzipped size of the
 * JavaScript loaded before the position can show (initial) and of all JavaScript, and writes
 * them to public/assets/size.json.
 *
 *   node build.mjs                                  build and print the sizes
 *   import { buildPage } from './build.mjs'         build from a benchmark, same options
 */
import * as esbuild from 'esbuild';
import { minify as terser } from 'terser';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';

const root = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** The initial-JavaScript budget, gzipped, in bytes (95 KB of 1024 bytes). */
export const INITIAL_JS_BUDGET = 95 * 1024;

const sizeOf = (bytes) => ({
  bytes: bytes.length,
  gzip: zlib.gzipSync(bytes, { level: 9 }).length,
  brotli: zlib.brotliCompressSync(bytes).length,
});

const total = (sizes) =>
  sizes.reduce((sum, size) => ({ bytes: sum.bytes + size.bytes, gzip: sum.gzip + size.gzip, brotli: sum.brotli + size.brotli }), {
    bytes: 0,
    gzip: 0,
    brotli: 0,
  });

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
 * Writes one esbuild build's in-memory outputs and returns the file name each was written under
 * (esbuild's output path → name). With `minify`, each JavaScript file goes through terser first,
 * its source map chained to esbuild's so that it still points at the TypeScript sources. Each
 * JavaScript file is then named by its final bytes: esbuild's [hash] covers only what esbuild
 * wrote, so a change of terser or its settings would keep a name for new bytes, which browsers
 * holding the year-long immutable copy of /assets/ would never fetch. The CSS keeps its name.
 */
async function writeOutputs(files, minify) {
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
        format: { comments: false },
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
 * An esbuild plugin that bundles pusher-js from its TypeScript sources, resolved the way its own
 * web build resolves them, instead of its prebuilt UMD file: as ES modules in the page's scope,
 * esbuild and terser shorten and share far more than they can inside one opaque CommonJS module
 * (~1 KB gzipped less before the position shows). The two @stablelib modules are development
 * dependencies of pusher-js (not installed) used only by private-encrypted channels, which need
 * a nacl implementation the page never passes, so they are stubs that say so if ever reached.
 * Each source is compiled as pusher-js's tsconfig.json compiles it (target ES6, so class fields
 * are assigned, not defined); esbuild does not read a tsconfig.json inside node_modules.
 */
function pusherFromSource() {
  const sources = path.join(PUSHER_DIR, 'src') + path.sep;
  const stub = 'export function decode() { throw new Error("private-encrypted channels are not part of this build of pusher-js"); }';
  return {
    name: 'pusher-from-source',
    setup(build) {
      build.onResolve({ filter: /^pusher-js$/ }, () => ({ path: path.join(PUSHER_DIR, 'src/core/pusher.ts') }));
      build.onResolve({ filter: /^@stablelib\/(utf8|base64)$/ }, (args) =>
        args.importer.startsWith(sources) ? { path: args.path, namespace: 'pusher-encryption-stub' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'pusher-encryption-stub' }, () => ({ contents: stub, loader: 'js' }));
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!args.path.startsWith(sources)) return undefined;
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
 * Modules the page loads with `import()`, after the first paint or on demand. Each is bundled on
 * its own, before the page, into `<name>-<hash>.js`, and the page's `import()` of it is pointed
 * at that file. One esbuild build with `splitting` would do the same, but it also moves its
 * runtime helpers and any module both sides use into shared chunks that the page imports
 * statically: extra files, each gzipped on its own, before the position shows. Built apart,
 * the page stays one file; a lazy module must then import nothing the page also bundles (else
 * it would run a second copy, e.g. of rxjs), which `checkNothingShared` enforces.
 */
const LAZY_MODULES = {
  sentry: 'src/adapters/sentry.ts',
  replay: 'src/effects/perform-replay.ts',
  'config-problem': 'src/view/config-problem.ts',
  'lost-place': 'src/view/lost-place.ts',
};

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
    sizes = await buildInto(building, minify);
    await buildConsole(building, minify);
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
    console.log(`initial JS (before the position shows): ${kb(sizes.initialJs.gzip)} gz (${sizes.initialJs.gzip} bytes; budget ${kb(INITIAL_JS_BUDGET)})${sizes.withinBudget ? '' : ' — OVER BUDGET'}`);
    console.log(`all JS: ${kb(sizes.allJs.gzip)} gz; CSS: ${kb(sizes.css.gzip)} gz`);
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

/** Builds the page into the empty folder `building` and returns the size figures, also written there. */
async function buildInto(building, minify) {
  const options = esbuildOptions(building, minify);
  const lazy = await esbuild.build({ ...options, entryPoints: LAZY_MODULES });
  const lazyNames = await writeOutputs(lazy.outputFiles, minify);
  const nameOf = (names, file) => names.get(path.join(root, file));
  const lazyOutputs = Object.entries(lazy.metafile.outputs).filter(([, output]) => output.entryPoint);
  const lazyFiles = new Map(lazyOutputs.map(([file, output]) => [output.entryPoint, nameOf(lazyNames, file)]));
  const page = await esbuild.build({
    ...options,
    entryPoints: { main: 'src/main.tsx', waiting: 'public/waiting.css' },
    // Only the page bundles pusher-js; its defines would rewrite @sentry/browser's `global`.
    define: { ...options.define, ...PUSHER_DEFINES },
    plugins: [lazyImports(lazyFiles), pusherFromSource()],
  });
  const pageNames = await writeOutputs(page.outputFiles, minify);
  const metafile = { outputs: { ...lazy.metafile.outputs, ...page.metafile.outputs } };
  const outputs = Object.keys(metafile.outputs);
  // Every output is written straight into the folder, under the name writeOutputs gave it.
  const relative = (file) => nameOf(lazyNames, file) ?? nameOf(pageNames, file);
  const entryOf = (source) => outputs.find((file) => metafile.outputs[file].entryPoint === source);
  const mainJs = entryOf('src/main.tsx');
  const css = entryOf('public/waiting.css');
  checkNothingShared(metafile.outputs[mainJs], lazyOutputs);
  const initial = staticClosure(metafile, mainJs);
  const js = outputs.filter((file) => file.endsWith('.js'));
  const measure = async (files) => {
    const each = await Promise.all(files.map(async (file) => ({ file: relative(file), ...sizeOf(await readFile(path.join(building, relative(file)))) })));
    return { ...total(each), files: each };
  };

  const template = await readFile(path.join(root, 'public/index.html'), 'utf8');
  if (template.split('id="waiting-room-config"').length !== 2) throw new Error('public/index.html must hold exactly one #waiting-room-config element');
  const preloads = initial
    .filter((file) => file !== mainJs)
    .map((file) => `<link rel="modulepreload" href="/assets/${relative(file)}">\n`)
    .join('');
  let html = replaceOnce(template, '<link rel="stylesheet" href="waiting.css">', `<link rel="stylesheet" href="/assets/${relative(css)}">\n${preloads}`.trimEnd());
  html = replaceOnce(html, '<script type="module" src="main.js"></script>', `<script type="module" src="/assets/${relative(mainJs)}"></script>`);
  await writeFile(path.join(building, 'waiting.html'), html);

  const sizes = {
    budget: { initialJsGzip: INITIAL_JS_BUDGET },
    initialJs: await measure(initial),
    allJs: await measure(js),
    css: await measure([css]),
    html: 'waiting.html',
    compression: 'gzip level 9; brotli default quality',
  };
  sizes.withinBudget = sizes.initialJs.gzip <= INITIAL_JS_BUDGET;
  await writeFile(path.join(building, 'size.json'), JSON.stringify(sizes, null, 2) + '\n');
  return sizes;
}

/**
 * Builds the operator console into `building`: its own entry (`src/admin/main.tsx`), script and
 * CSS (uPlot's with its own), and `admin.html`, which `GET /admin/` serves. Nothing of it is
 * loaded by the waiting page, nor counted in its sizes: a visitor never fetches it.
 */
async function buildConsole(building, minify) {
  const result = await esbuild.build({ ...esbuildOptions(building, minify), entryPoints: { admin: 'src/admin/main.tsx' } });
  const names = await writeOutputs(result.outputFiles, minify);
  const [js, output] = Object.entries(result.metafile.outputs).find(([, each]) => each.entryPoint === 'src/admin/main.tsx');
  const nameOf = (file) => names.get(path.join(root, file));
  let html = await readFile(path.join(root, 'public/admin.html'), 'utf8');
  html = replaceOnce(html, '<link rel="stylesheet" href="admin.css">', `<link rel="stylesheet" href="/assets/${nameOf(output.cssBundle)}">`);
  html = replaceOnce(html, '<script type="module" src="admin.js"></script>', `<script type="module" src="/assets/${nameOf(js)}"></script>`);
  await writeFile(path.join(building, 'admin.html'), html);
}

// Over budget is reported, not fatal: `npm start` builds first and must still start.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await buildPage();
}
