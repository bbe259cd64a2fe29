import { openingMarkdown, type OpeningResult } from './admission/opening';
import { formatFigure, formatRatio, type ComparedFigure } from './compare';
import type { TargetCheck } from './goals';

export interface BenchResults {
  readonly date: string;
  readonly machine: { cpus: number; cpuModel?: string; memoryGb: number; node: string; loadAverageAtStart: number[]; loadAverageAtEnd: number[] };
  readonly seconds: number;
  /** How long each part took, in seconds. */
  readonly partSeconds?: Readonly<Record<string, number>>;
  /** The parts this run measured (older reports: unset). */
  readonly parts?: readonly string[];
  readonly targets: TargetCheck[];
  readonly targetsRedis?: TargetCheck[];
  readonly opening?: OpeningResult;
  /** The run this one is compared with (bench/results/baseline.json unless BENCH_BASELINE names another). */
  readonly previousRun?: { readonly file: string; readonly date?: string };
  readonly comparison?: readonly ComparedFigure[];
}

const fixed = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '–');

/** The Markdown summary of one benchmark run: the targets, the comparison, the opening bursts. */
export function renderMarkdown(results: BenchResults): string {
  const { machine } = results;
  const lines = [
    '# Waiting Room benchmark',
    '',
    `${results.date} · ${machine.cpus} × ${machine.cpuModel ?? 'CPU'} · ${machine.memoryGb} GB · Node ${machine.node} · ` +
      `load average ${machine.loadAverageAtStart.join(' ')} at start, ${machine.loadAverageAtEnd.join(' ')} at end · ${fixed(results.seconds)} s`,
  ];
  if (results.parts) {
    const seconds = Object.entries(results.partSeconds ?? {}).map(([part, value]) => `${part} ${fixed(value)} s`);
    lines.push('', `Parts measured in this run: ${results.parts.join(', ')}${seconds.length > 0 ? ` (${seconds.join(', ')})` : ''}.`);
  }
  lines.push('', '## Targets', '', ...targetTable(results.targets));
  if (results.targetsRedis) lines.push('', 'With the Redis store:', '', ...targetTable(results.targetsRedis));
  if (results.comparison) lines.push('', ...comparison(results.comparison, results.previousRun));
  if (results.opening) lines.push('', '## Opening bursts (adaptive admission, virtual clock)', '', openingMarkdown(results.opening));
  lines.push('', 'Every figure of the run is in `latest.json`.', '');
  return lines.join('\n');
}

function targetTable(checks: readonly TargetCheck[]): string[] {
  return [
    '| target | goal | measured | verdict |',
    '| --- | --- | --- | --- |',
    ...checks.map((check) => `| ${check.name} | ${check.target} | ${check.measured}${check.note ? ` (${check.note})` : ''} | **${check.verdict}** |`),
  ];
}

function comparison(figures: readonly ComparedFigure[], previous: BenchResults['previousRun']): string[] {
  const shown = figures.filter((figure) => figure.current !== undefined);
  return [
    '## Compared with the previous run',
    '',
    previous
      ? `Previous run: \`${previous.file}\`${previous.date ? ` (${previous.date})` : ''}. A ratio below 1 is a smaller figure than before: better where lower is better (times, memory, CPU), worse where higher is (throughput, visitors). "–": not measured in one of the runs.`
      : 'No previous run to compare with (bench/results/baseline.json, or BENCH_BASELINE).',
    '',
    '| figure | previous | this run | this run ÷ previous |',
    '| --- | --- | --- | --- |',
    ...shown.map(
      (figure) =>
        `| ${figure.label} | ${formatFigure(figure.previous, figure.unit)} | ${formatFigure(figure.current, figure.unit)} | ${formatRatio(figure.ratio)} |`,
    ),
  ];
}
