/**
 * Jest's order of test files, with one more rule. Jest starts the files that took longest in its
 * last run first, so that the workers finish together; with no times of its own yet (a fresh
 * clone, as in CI) it goes by file size, which can leave a file of a minute or more to the end of a
 * run, alone on one worker. Then the files below, the slowest of each tier in the reporter's list
 * (`file-times-reporter.js`), start first, slowest first; the others keep Jest's order.
 */
const Sequencer = require('@jest/test-sequencer').default;
const path = require('node:path');

const SLOWEST = [
  // The system tier's. The chaos suite judges admissions by when its visitors' replays land, so it
  // starts beside files that mostly wait (timers, a failover), before the files that load the page
  // in every language (its budgets; its texts and accessibility) keep the cores busy.
  'spec/server/chaos-cluster.spec.ts',
  'spec/e2e/away.spec.ts',
  'spec/e2e/realtime-down.spec.ts',
  'spec/server/replay-failover.spec.ts',
  'spec/e2e/page-budget.spec.ts',
  'spec/e2e/languages.spec.ts',
  'spec/e2e/connector-next.spec.ts',
  'spec/e2e/accessibility.spec.ts',
  // The fast tier's.
  'spec/server/verify-draw-cli.spec.ts',
  'spec/server/node-flags.spec.ts',
  'spec/server/store-redis.spec.ts',
  'spec/server/restart-state.spec.ts',
  'spec/server/opening-redis.spec.ts',
  'spec/server/realtime-limits.spec.ts',
];

module.exports = class LongestFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((test) => test.duration != null)) return sorted;
    const rank = (test) => {
      const index = SLOWEST.indexOf(path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/'));
      return index === -1 ? SLOWEST.length : index;
    };
    return sorted
      .map((test, order) => ({ test, order }))
      .sort((a, b) => rank(a.test) - rank(b.test) || a.order - b.order)
      .map(({ test }) => test);
  }
};
