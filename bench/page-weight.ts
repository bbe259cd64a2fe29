/**
 * Page weight: the gzipped JavaScript of the waiting page as `build.mjs` builds it (loaded
 * before the position shows, and in all), against the build's budget.
 */
import path from 'node:path';

type Sizes = { readonly gzip: number; readonly brotli: number };
/** What is read of build.mjs's sizes; `wire`: its files before the position as the server sends them (the HTML as is, the rest Brotli). */
type BuiltSizes = { budget: { initialJsGzip: number }; initialJs: Sizes; allJs: Sizes; withinBudget: boolean; wire: { budget: number; total: number } };
type BuildModule = { buildPage: (options: { outdir?: string; log?: boolean }) => Promise<BuiltSizes> };

/** Builds the page into `outdir` with the project's build, and reads its sizes. */
export async function measurePageWeight(outdir: string) {
  // build.mjs is an ES module; a computed specifier keeps the CommonJS output from requiring it.
  const buildUrl = new URL('build.mjs', `file://${path.resolve(__dirname, '..')}/`).href;
  const { initialJs, allJs, wire, budget, withinBudget } = await ((await import(buildUrl)) as BuildModule).buildPage({ outdir, log: false });
  const page = { initialJsGzip: initialJs.gzip, allJsGzip: allJs.gzip, initialJsBrotli: initialJs.brotli, wire, budgetInitialJsGzip: budget.initialJsGzip };
  return { page: { ...page, withinBudget } };
}
