/**
 * A Jest reporter: at the end of a run, each test file's time, slowest first (the first
 * SHOWN), and the total per tier (the project, `jest.config.js`), so that a new slow test is
 * seen the day it arrives. Printed before Jest's summary, which stays the run's last lines.
 */
const path = require('node:path');

/** How many of the slowest files are listed. */
const SHOWN = 15;

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

module.exports = class FileTimesReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults
      .filter((result) => !result.skipped)
      .map((result) => ({
        file: path.relative(this.rootDir, result.testFilePath),
        tier: result.displayName?.name ?? 'tests',
        ms: Math.max(0, result.perfStats.end - result.perfStats.start),
      }))
      .sort((a, b) => b.ms - a.ms);
    if (files.length === 0) return;
    const lines = [`Slowest test files (${Math.min(SHOWN, files.length)} of ${files.length}):`];
    const width = Math.max(...files.slice(0, SHOWN).map((file) => file.file.length));
    for (const { file, tier, ms } of files.slice(0, SHOWN)) lines.push(`  ${seconds(ms).padStart(8)}  ${file.padEnd(width)}  ${tier}`);
    const tiers = new Map();
    for (const { tier, ms } of files) {
      const total = tiers.get(tier) ?? { files: 0, ms: 0 };
      tiers.set(tier, { files: total.files + 1, ms: total.ms + ms });
    }
    lines.push('Time per tier (the sum of its files; workers run files side by side):');
    for (const [tier, total] of [...tiers].sort((a, b) => b[1].ms - a[1].ms)) {
      lines.push(`  ${seconds(total.ms).padStart(8)}  ${tier}: ${total.files} file${total.files === 1 ? '' : 's'}`);
    }
    process.stderr.write(`\n${lines.join('\n')}\n`);
  }
};
