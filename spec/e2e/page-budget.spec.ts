import { builtAssetsDir } from '../support/run-build';
import { checkPageBudget, measurePageLoad, OWN_PAGE_ROOMS, PAGE_LOAD_TARGETS, type PageLoadResult } from '../../bench/page-load';

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
