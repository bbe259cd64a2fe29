/**
 * Page weight: the gzipped JavaScript of the waiting page as `build.mjs` builds it (loaded
 * before the position shows, and in all), beside a naive bundle of the same app and
 * dependencies: one esbuild bundle, everything eager (the lazily loaded error-reporting
 * chunk folded in), with esbuild's defaults instead of the build's size choices.
 */
import * as esbuild from 'esbuild';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';

const root = path.resolve(__dirname, '..');

interface SizeFigures {
  readonly bytes: number;
  readonly gzip: number;
}

interface BuiltSizes {
  readonly budget: { readonly initialJsGzip: number };
  readonly initialJs: SizeFigures & { readonly brotli: number; readonly files: readonly (SizeFigures & { file: string })[] };
  readonly allJs: SizeFigures & { readonly files: readonly (SizeFigures & { file: string })[] };
  readonly withinBudget: boolean;
  /** The build's files before the position shows as the server sends them (the HTML as is, the rest Brotli). */
  readonly wire: { readonly budget: number; readonly total: number; readonly withinBudget: boolean };
}

type BuildModule = { buildPage: (options: { outdir?: string; log?: boolean }) => Promise<BuiltSizes> };

/** Builds the page into `outdir` with the project's build, then the naive bundle, and compares them. */
export async function measurePageWeight(outdir: string) {
  // build.mjs is an ES module; a computed specifier keeps the CommonJS output from requiring it.
  const buildUrl = new URL('build.mjs', `file://${root}/`).href;
  const { buildPage } = (await import(buildUrl)) as BuildModule;
  const page = await buildPage({ outdir, log: false });
  const naive = await naiveBundle(path.join(outdir, 'naive'));
  return {
    page: {
      initialJsGzip: page.initialJs.gzip,
      allJsGzip: page.allJs.gzip,
      initialJsBytes: page.initialJs.bytes,
      initialJsBrotli: page.initialJs.brotli,
      wire: page.wire,
      allJsBytes: page.allJs.bytes,
      files: page.allJs.files.map(({ file, bytes, gzip }) => ({ file, bytes, gzip, initial: page.initialJs.files.some((initial) => initial.file === file) })),
      budgetInitialJsGzip: page.budget.initialJsGzip,
      withinBudget: page.withinBudget,
    },
    naive,
    ratio: {
      initialToNaive: page.initialJs.gzip / naive.gzip,
      allToNaive: page.allJs.gzip / naive.gzip,
    },
    compression: 'gzip level 9 (as build.mjs measures)',
    runs: 1,
    runsNote: 'sizes are deterministic: one build each',
  };
}

export type PageWeightResult = Awaited<ReturnType<typeof measurePageWeight>>;

/** The same app bundled the obvious way: one minified file, no code splitting, default resolution. */
async function naiveBundle(outdir: string): Promise<SizeFigures & { file: string; includes: string[] }> {
  const outfile = path.join(outdir, 'naive.js');
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['src/main.tsx'],
    outfile,
    bundle: true,
    splitting: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js'));
  if (outputs.length !== 1) throw new Error(`the naive bundle should be one file; esbuild wrote ${outputs.length}`);
  const inputs = Object.keys(outputs[0][1].inputs);
  const packages = ['react', 'react-dom', 'rxjs', 'observable-hooks', 'pusher-js', '@sentry/browser'];
  const includes = packages.filter((name) => inputs.some((input) => input.includes(`node_modules/${name}/`)));
  const missing = packages.filter((name) => !includes.includes(name));
  if (missing.length > 0) throw new Error(`the naive bundle lacks ${missing.join(', ')}`);
  const bytes = await readFile(outfile);
  return { file: path.basename(outfile), bytes: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length, includes };
}
