import type { AdmissionResult } from './admission/run-admission';
import { openingMarkdown, type OpeningResult } from './admission/opening';
import type { RampResult } from './capacity/ramp';
import type { CapacityResult } from './capacity/run-capacity';
import type { StoreComparisonResult } from './capacity/stores';
import { formatFigure, formatRatio, type ComparedFigure } from './compare';
import type { EstimateResult } from './estimate-accuracy';
import type { DropResult } from './drop';
import type { MillionResult } from './million';
import type { GatewayOverheadResult } from './gateway-overhead';
import type { PageLoadResult } from './page-load';
import type { PageWeightResult } from './page-weight';
import type { ConnectorPassResult } from './connector-pass';
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
  readonly pageWeight: PageWeightResult;
  readonly pageLoad?: PageLoadResult;
  /** The same, for a room's own page (the documented example template). */
  readonly ownPageLoad?: PageLoadResult;
  readonly estimate?: EstimateResult;
  readonly estimateVariants?: readonly { readonly label: string; readonly result: EstimateResult }[];
  readonly capacity?: CapacityResult;
  readonly capacityRedis?: CapacityResult;
  readonly storeComparison?: StoreComparisonResult;
  readonly gateway?: GatewayOverheadResult;
  readonly admission?: AdmissionResult;
  readonly opening?: OpeningResult;
  readonly drop?: DropResult;
  readonly million?: MillionResult;
  readonly ramps?: readonly RampResult[];
  readonly connectorPass?: ConnectorPassResult;
  /** The run this one is compared with (bench/results/baseline.json unless BENCH_BASELINE names another). */
  readonly previousRun?: { readonly file: string; readonly date?: string };
  readonly comparison?: readonly ComparedFigure[];
}

/** Each part's section of the summary, in order: its title and where its results are. bench/README.md says what each figure is. */
const SECTIONS: readonly [title: string, key: string][] = [
  ['Page weight (gzipped JavaScript)', 'pageWeight'],
  ['Page load on a slow phone (Chromium)', 'pageLoad'],
  ["Page load on a slow phone, a room's own page", 'ownPageLoad'],
  ['Server capacity (memory store)', 'capacity'],
  ['Server capacity (Redis store)', 'capacityRedis'],
  ['queue_info throughput, Redis store ÷ memory store', 'storeComparison'],
  ['Wait estimate accuracy', 'estimate'],
  ['Wait estimate accuracy, other lines', 'estimateVariants'],
  ['Gateway overhead', 'gateway'],
  ['Adaptive admission against fixed settings', 'admission'],
  ['Drop day', 'drop'],
  ['A million in one room', 'million'],
  ['A held arrival', 'arrivals'],
  ['An opening of a million', 'openingMillion'],
  ['Capacity ramp', 'ramps'],
  ["The connector's pass", 'connectorPass'],
];

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
/** A leaf of the results as the summary shows it. */
const leaf = (value: unknown): string =>
  typeof value === 'number'
    ? Number.isFinite(value)
      ? String(Math.round(value * 1000) / 1000)
      : '–'
    : typeof value === 'string' || typeof value === 'boolean'
      ? String(value)
      : '–';
const isLeaf = (value: unknown) => value === null || typeof value !== 'object';
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** `value`'s figures, each as [its path, its text]; lists of records go to `lists` as tables of their own. */
function flatten(value: unknown, at: string, rows: [string, string][], lists: [string, readonly unknown[]][]): void {
  if (isLeaf(value)) rows.push([at, leaf(value)]);
  else if (Array.isArray(value)) {
    if (value.every(isLeaf)) rows.push([at, value.map(leaf).join(', ')]);
    else lists.push([at, value]);
  } else for (const [key, inner] of Object.entries(value as object)) flatten(inner, at ? `${at}.${key}` : key, rows, lists);
}

/** A part's results as Markdown tables: its figures, then each of its lists of records (runs, steps, rooms) a row each. */
function section(title: string, value: unknown): string[] {
  const rows: [string, string][] = [];
  const lists: [string, readonly unknown[]][] = [];
  flatten(value, '', rows, lists);
  const lines = [`## ${title}`];
  if (rows.length > 0) lines.push('', '| figure | value |', '| --- | --- |', ...rows.map(([name, text]) => `| ${cell(name)} | ${cell(text)} |`));
  for (const [name, items] of lists) {
    const records = items.map((item) => {
      const fields: [string, string][] = [];
      const inner: [string, readonly unknown[]][] = [];
      flatten(item, '', fields, inner);
      // A list inside a record stays on its line, as JSON.
      for (const [at, list] of inner) fields.push([at, JSON.stringify(list).slice(0, 300)]);
      return new Map(fields);
    });
    const columns = [...new Set(records.flatMap((record) => [...record.keys()]))];
    lines.push('', `${name || 'each'}:`, '', `| ${columns.map(cell).join(' | ')} |`, `| ${columns.map(() => '---').join(' | ')} |`);
    lines.push(...records.map((record) => `| ${columns.map((column) => cell(record.get(column) ?? '')).join(' | ')} |`));
  }
  return lines;
}

/** The Markdown summary of one benchmark run. */
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
  const parts = results as unknown as Record<string, unknown>;
  for (const [title, key] of SECTIONS) {
    const value = parts[key];
    // A list of results (the ramp's stores, the estimate's lines) is a section each.
    const each = Array.isArray(value) ? value : value === undefined ? [] : [value];
    each.forEach((item, i) => lines.push('', ...section(each.length > 1 ? `${title} (${i + 1})` : title, item)));
  }
  if (results.opening) lines.push('', '## Opening bursts (adaptive admission, virtual clock)', '', openingMarkdown(results.opening));
  lines.push('');
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
