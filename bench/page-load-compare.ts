/**
 * Two builds of the page, loaded in turn: the time to position of each, as the bench's page-load
 * part measures it (`measurePageLoad`: the real server, Chromium, Fast 3G and the CPU 4× slower),
 * one cold load of A, then one of B, `rounds` times. Taken in turn, both see the same load of the
 * machine, which moves a run's median by a tenth of a second on a shared one: a change of less
 * shows here, where two bench runs apart would hide it.
 *
 *   node -e "import('./build.mjs').then((m) => m.buildPage({ outdir: '/tmp/page-a' }))"   # each build
 *   node --import tsx bench/page-load-compare.ts /tmp/page-a /tmp/page-b [rounds, default 7]
 */
import path from 'node:path';
import { measurePageLoad, type LoadRun } from './page-load';
import { median } from './stats';

async function compare(dirs: readonly string[], rounds: number): Promise<void> {
  const runs: LoadRun[][] = dirs.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, pageDir] of dirs.entries()) {
      const result = await measurePageLoad({ pageDir, runs: 1, log: () => undefined });
      runs[i].push(...result.runs);
    }
  }
  for (const [i, pageDir] of dirs.entries()) {
    const shown = runs[i].map((run) => run.timeline.positionShown);
    // After the last of the scripts: what the page's own CPU adds to the link.
    const afterScripts = runs[i].map((run) => run.timeline.positionShown - Math.max(run.timeline.startUpScriptReceived, run.timeline.viewReceived));
    console.log(
      `${path.basename(pageDir)}: time to position ${median(shown).toFixed(0)} ms (median of ${shown.length}; ` +
        `${shown.map((ms) => ms.toFixed(0)).join(', ')}), after the last script ${median(afterScripts).toFixed(0)} ms`,
    );
  }
}

const [a, b, rounds = '7'] = process.argv.slice(2);
if (!a || !b || !(Number(rounds) >= 1)) {
  console.error('usage: node --import tsx bench/page-load-compare.ts <page dir A> <page dir B> [rounds]');
  process.exit(2);
}
compare([a, b], Math.floor(Number(rounds))).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
