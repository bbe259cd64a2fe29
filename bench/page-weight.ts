/**
 * Page weight: the gzipped JavaScript of the waiting page as `build.mjs` builds it (loaded
 * before the position shows, and in all), against the build's budget.
 */
import path from 'node:path';

const root = path.resolve(__dirname, '..');

type Sizes = { readonly bytes: number; readonly gzip: number; readonly files: readonly { file: string; bytes: number; gzip: number }[] };
interface BuiltSizes {
  readonly budget: { readonly initialJsGzip: number };
  readonly initialJs: Sizes & { readonly brotli: number };
  readonly allJs: Sizes;
  readonly withinBudget: boolean;
  /** The build's files before the position shows as the server sends them (the HTML as is, the rest Brotli). */
  readonly wire: { readonly budget: number; readonly total: number; readonly withinBudget: boolean };
}

type BuildModule = { buildPage: (options: { outdir?: string; log?: boolean }) => Promise<BuiltSizes> };

/** Builds the page into `outdir` with the project's build, and reads its sizes. */
export async function measurePageWeight(outdir: string) {
  // build.mjs is an ES module; a computed specifier keeps the CommonJS output from requiring it.
  const buildUrl = new URL('build.mjs', `file://${root}/`).href;
  const { buildPage } = (await import(buildUrl)) as BuildModule;
  const page = await buildPage({ outdir, log: false });
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
    compression: 'gzip level 9 (as build.mjs measures); sizes are deterministic: one build',
  };
}

export type PageWeightResult = Awaited<ReturnType<typeof measurePageWeight>>;
