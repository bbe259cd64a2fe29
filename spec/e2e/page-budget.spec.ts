import {
  checkPageBudget,
  jsBudgetOf,
  measureLanguages,
  measurePageLoad,
  OWN_PAGE_ROOMS,
  PAGE_LOAD_TARGETS,
  type LanguageLoad,
  type PageLoadResult,
} from '../../bench/page-load';
import { LOCALES } from '../../locales';
import { builtAssetsDir } from '../support/run-build';

/** The page as the global set-up built it for this run (`node build.mjs`), where the server reads it. */
const PAGE_DIR = builtAssetsDir();

/**
 * The build's JavaScript budget, checked on what Chromium fetches before the position shows (the
 * bench's page-load part, one run here): on a slow phone the deferred files (error reporting, the
 * replay code, the controls) must not be asked for before the position, and past the budget the
 * check fails. A room's own page (the documented example template) keeps the same budgets.
 */
describe.each([
  ['the default page', {}],
  ["a room's own page (docs/examples)", { ROOMS_FILE: OWN_PAGE_ROOMS }],
])('page: the JavaScript budget, on what Chromium fetches before the position: %s', (_page, env: Record<string, string>) => {
  let result: PageLoadResult;
  beforeAll(async () => {
    result = await measurePageLoad({ pageDir: PAGE_DIR, runs: 1, log: () => undefined, env });
  }, 120_000);

  it('should fetch only the start-up code and the view before the position, within the budget', () => {
    const [run] = result.runs;
    expect(run.jsBeforePosition.files.map((file) => file.replace(/-[A-Z0-9]+\.js$/, '')).sort()).toEqual(['main', 'view']);
    expect(run.jsBeforePosition.gzip).toBeLessThanOrEqual(result.settings.jsBudgetGzip);
    expect(run.wireBytesBeforePosition).toBeLessThanOrEqual(PAGE_LOAD_TARGETS.wireBytesBeforePosition);
    expect(() => checkPageBudget(result)).not.toThrow();
  });

  it('should fail the check past the budget, naming the scripts', () => {
    const measured = result.runs[0].jsBeforePosition.gzip;
    const tighter = { ...result, settings: { ...result.settings, jsBudgetGzip: measured - 1 } };
    expect(() => checkPageBudget(tighter)).toThrow(new RegExp(`fetched ${measured} bytes .* budget of ${measured - 1}: main-`));
  });
});

/**
 * Every language is one catalogue in the page config, so no language may cost the first second
 * more than the budgets: one cold load per language on the slow phone's network, one browser, one
 * server. The time to the position is the bench's to judge (`npm run bench`, on the slow phone's
 * CPU too); here, what each load fetched before it, which neither the loads' running side by side
 * nor the CPU's slowdown changes: the page asks for its deferred files once the position shows,
 * which the loads above check on the slow CPU. Without the slowdown, whose throttling spins a core
 * while it holds a page back, the sweep takes half the CPU.
 */
describe('page: the budgets in every language', () => {
  let loads: LanguageLoad[];
  beforeAll(async () => {
    loads = await measureLanguages({ pageDir: PAGE_DIR, locales: LOCALES, log: () => undefined, concurrency: 4, cpuSlowdown: 1 });
  }, 600_000);

  it('should write the page in each language asked for', () => {
    expect(loads.map((load) => load.lang)).toEqual(LOCALES);
  });

  it('should fetch only the start-up code and the view before the position, within the JavaScript budget and the bytes before the position, in every language', () => {
    const budget = jsBudgetOf(PAGE_DIR);
    const over = loads.filter(
      (load) =>
        load.jsBeforePosition.gzip > budget ||
        load.wireBytesBeforePosition > PAGE_LOAD_TARGETS.wireBytesBeforePosition ||
        load.jsBeforePosition.files
          .map((file) => file.replace(/-[A-Z0-9]+\.js$/, ''))
          .sort()
          .join() !== 'main,view',
    );
    expect(over).toEqual([]);
    // The same scripts in every language: no catalogue is in the JavaScript.
    expect(new Set(loads.map((load) => load.jsBeforePosition.gzip)).size).toBe(1);
  });
});
