/**
 * Builds the waiting page with esbuild: a minified ES module bundle with content-hashed names
 * and source maps in public/assets/, the CSS beside it, and public/assets/waiting.html (the
 * template with the hashed URLs). @sentry/browser goes into its own chunk, loaded after the
 * first paint. With `minify`, terser runs over esbuild's output: esbuild bundles, tree-shakes and
 * names files by content; terser's compressor takes a further ~2.5 KB gzipped off React, which
 * the initial-JavaScript budget needs. Prints the gzipped size of the JavaScript loaded before the position can show
 * (initial) and of all JavaScript, and writes them to public/assets/size.json.
 *
 *   node build.mjs                                  build and print the sizes
 *   import { buildPage } from './build.mjs'         build from a benchmark, same options
 */
import * as esbuild from 'esbuild';
import { minify as terser } from 'terser';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
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

/**
 * Writes esbuild's in-memory outputs. With `minify`, each JavaScript file goes through terser
 * first, its source map chained to esbuild's so that it still points at the TypeScript sources.
 */
async function writeOutputs(files, minify) {
  const byPath = new Map(files.map((file) => [file.path, file]));
  for (const file of files) {
    const map = byPath.get(`${file.path}.map`);
    if (!minify || !file.path.endsWith('.js')) {
      if (!(minify && file.path.endsWith('.js.map'))) await writeFile(file.path, file.contents);
      continue;
    }
    const name = path.basename(file.path);
    const result = await terser(file.text.replace(/\/\/# sourceMappingURL=\S+\s*$/, ''), {
      module: true,
      ecma: 2020,
      compress: { passes: 2 },
      format: { comments: false },
      sourceMap: { content: map.text, filename: name, url: `${name}.map` },
    });
    await writeFile(file.path, result.code);
    await writeFile(map.path, result.map);
  }
}

/** Replaces `from` in `html` with `to`, requiring exactly one occurrence. */
function replaceOnce(html, from, to) {
  const count = html.split(from).length - 1;
  if (count !== 1) throw new Error(`public/index.html must contain ${from} exactly once (found ${count})`);
  return html.replace(from, () => to);
}

/**
 * Builds the page into `outdir` and returns the size figures (also written to size.json).
 * Options: `outdir` (default public/assets), `minify` (default true), `log` (print, default true).
 */
export async function buildPage({ outdir = path.join(root, 'public/assets'), minify = true, log = true } = {}) {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { main: 'src/main.tsx', waiting: 'public/waiting.css' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify,
    sourcemap: 'linked',
    metafile: true,
    write: false,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    jsx: 'automatic',
    // rxjs's ES2015 build is smaller than its ES5 default.
    conditions: ['es2015'],
    // The prebuilt, terser-minified pusher-js is smaller than what esbuild makes of its source.
    alias: { 'pusher-js': require.resolve('pusher-js/dist/web/pusher.min.js') },
    define: { 'process.env.NODE_ENV': minify ? '"production"' : '"development"' },
    drop: minify ? ['debugger'] : [],
    // Licences go to *.LEGAL.txt files beside the bundles instead of into the bytes loaded.
    legalComments: 'external',
    logLevel: 'warning',
  });

  await writeOutputs(result.outputFiles, minify);
  const { metafile } = result;
  const outputs = Object.keys(metafile.outputs);
  const relative = (file) => path.relative(outdir, path.join(root, file)).split(path.sep).join('/');
  const entryOf = (source) => outputs.find((file) => metafile.outputs[file].entryPoint === source);
  const mainJs = entryOf('src/main.tsx');
  const css = entryOf('public/waiting.css');
  const initial = staticClosure(metafile, mainJs);
  const js = outputs.filter((file) => file.endsWith('.js'));
  const measure = async (files) => {
    const each = await Promise.all(files.map(async (file) => ({ file: relative(file), ...sizeOf(await readFile(path.join(root, file))) })));
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
  await writeFile(path.join(outdir, 'waiting.html'), html);

  const sizes = {
    budget: { initialJsGzip: INITIAL_JS_BUDGET },
    initialJs: await measure(initial),
    allJs: await measure(js),
    css: await measure([css]),
    html: 'waiting.html',
    compression: 'gzip level 9; brotli default quality',
  };
  sizes.withinBudget = sizes.initialJs.gzip <= INITIAL_JS_BUDGET;
  await writeFile(path.join(outdir, 'size.json'), JSON.stringify(sizes, null, 2) + '\n');

  if (log) {
    const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
    console.log(`waiting page built into ${path.relative(root, outdir) || '.'}`);
    for (const file of sizes.allJs.files) console.log(`  ${file.file.padEnd(28)} ${kb(file.bytes).padStart(9)} ${kb(file.gzip).padStart(9)} gz`);
    console.log(`initial JS (before the position shows): ${kb(sizes.initialJs.gzip)} gz (${sizes.initialJs.gzip} bytes; budget ${kb(INITIAL_JS_BUDGET)})${sizes.withinBudget ? '' : ' — OVER BUDGET'}`);
    console.log(`all JS: ${kb(sizes.allJs.gzip)} gz; CSS: ${kb(sizes.css.gzip)} gz`);
  }
  return sizes;
}

// Over budget is reported, not fatal: `npm start` builds first and must still start.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await buildPage();
}
