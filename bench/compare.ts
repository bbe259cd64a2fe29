/**
 * The run's figures beside the previous run's: the same figure read from both results files (an
 * older file may lack some; those show "–"), and this run ÷ the previous one (the previous run:
 * `bench/results/baseline.json`, or the file `BENCH_BASELINE` names); and the run's summary,
 * latest.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { openingMarkdown, type OpeningResult } from './admission/opening';
import { check, TARGETS as T, type TargetCheck } from './goals';

/** Results as read back from a file: any part may be missing from an older run, so every read is guarded. */
type Results = any; // eslint-disable-line @typescript-eslint/no-explicit-any
type Unit = 'ms' | 'µs' | 'KB' | 'MiB' | '/s' | '×' | 'visitors' | '';

/** A figure in both runs; `ratio`: this run ÷ the previous one, which `lowerIsBetter` says how to read. */
export type ComparedFigure = { key: string; label: string; unit: Unit; lowerIsBetter: boolean; previous?: number; current?: number; ratio?: number };

/** A figure's goal: at most (≤) or at least (≥) a bound; 'at scale': judged only with the full crowd (`TARGETS.visitorsHeld`). */
type Goal = readonly ['≤' | '≥', number, 'at scale'?];
/** [key, label, unit, lower is better, where in the results (a dotted path, or a reader), its goal]. */
type Figure = readonly [key: string, label: string, unit: Unit, lowerIsBetter: boolean, read: string | ((results: Results) => unknown), goal?: Goal];

const finite = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const at = (results: Results, dotted: string): unknown => dotted.split('.').reduce((value, key) => value?.[key], results);
const kb = (bytes: unknown) => (finite(bytes) === undefined ? undefined : (bytes as number) / 1024);

const [HELD, FANOUT, HOLD, DURING]: Goal[] = [
  ['≥', T.visitorsHeld, 'at scale'],
  ['≤', T.fanoutP99Ms, 'at scale'],
  ['≤', T.loopHoldMaxMs, 'at scale'],
  ['≤', T.queueInfoDuringFanoutP99Ms, 'at scale'],
];
const MEMORY: Goal = ['≤', T.memoryPerVisitorBytes / 1024];

/** The server figures of one store's capacity run (`capacity` or `capacityRedis`). */
const capacityFigures = (part: string, store: string): Figure[] =>
  (
    [
      ['held', 'visitors held at once, without an error', 'visitors', false, (c) => c && (c.errors?.total === 0 ? c.hold?.held : 0), HELD],
      ['releaseP99', 'release → RequestUnqueud read by the visitor, p99', 'ms', true, 'releases.median.p99Ms', ['≤', T.releaseToDeliveryP99Ms]],
      ['queueMovedP50', 'release → QueueMoved read at every waiting socket, p50', 'ms', true, 'moves.median.p50Ms'],
      ['queueMovedP99', 'release → QueueMoved read at every waiting socket, p99', 'ms', true, 'moves.median.p99Ms', FANOUT],
      ['lastWriteP99', "release → the server's last QueueMoved socket written, p99 of batches", 'ms', true, 'fanout.median.lastWriteP99Ms', FANOUT],
      ['writePerSocket', "the fan-out's own writing time per socket", 'µs', true, 'fanout.median.microsPerSocketP50'],
      ['floorPerSocket', 'one loopback socket write by a bare Node `net` loop (the floor)', 'µs', true, 'fanout.median.floor.microsPerSocketWall'],
      ['ownHoldMax', "server's event loop held by its own work (CPU time in the hold), longest", 'ms', true, 'paced.median.serverOwnHoldMaxMs', HOLD],
      ['loopDelayMax', "server's event loop held by the clock (waits for a core included), longest", 'ms', true, 'paced.median.serverLoopDelayMaxMs'],
      ['gcPauseMax', "server's longest GC pause", 'ms', true, 'paced.median.serverGcPauseMaxMs'],
      ['pacedP99', "queue_info at the page's pace, p99", 'ms', true, 'paced.median.p99Ms'],
      ['duringFanoutP99', 'queue_info during a fan-out, p99', 'ms', true, 'fanout.median.queueInfoDuringP99Ms', DURING],
      ['throughputRatio', 'queue_info throughput ÷ bare Node http', '×', false, 'saturation.median.ratio', ['≥', T.throughputRatio]],
      ['cpuPerRequest', 'server CPU per queue_info', 'µs', true, 'saturation.median.oursCpuMicrosPerRequest'],
      ['memoryAtOnce', 'memory per waiting visitor, RSS right after the arrivals', 'KB', true, (c) => kb(c?.memory?.perVisitorBytes?.rss)],
      ['memorySettled', 'memory per waiting visitor, RSS settled', 'KB', true, (c) => kb(c?.memory?.settled?.perVisitorBytes?.rss), MEMORY],
    ] as Figure[]
  ).map(([key, label, unit, lower, read, goal]) => [
    `${store}.${key}`,
    `${label} (${store})`,
    unit,
    lower,
    (results: Results) => (typeof read === 'string' ? at(results?.[part], read) : read(results?.[part])),
    goal,
  ]);

const rampKnee = (store: string) => (results: Results) => (results?.ramps as Results[] | undefined)?.find((ramp) => ramp?.settings?.store === store)?.knee;

const FIGURES: readonly Figure[] = [
  ...capacityFigures('capacity', 'memory'),
  ...capacityFigures('capacityRedis', 'Redis'),
  [
    'redisVsMemoryThroughput',
    'queue_info throughput, Redis store ÷ memory store (side by side, alternating slices)',
    '×',
    false,
    // A run with errors is no measure of the stores.
    (r) => (r?.storeComparison?.errors > 0 ? 0 : r?.storeComparison?.median?.ratio),
    ['≥', T.redisThroughputVsMemory],
  ],
  ['memory.sideBySideCpuPerRequest', 'server CPU per queue_info, side by side (memory)', 'µs', true, 'storeComparison.median.memory.serverCpuMicrosPerRequest'],
  ['Redis.sideBySideCpuPerRequest', 'server CPU per queue_info, side by side (Redis)', 'µs', true, 'storeComparison.median.redis.serverCpuMicrosPerRequest'],
  ['Redis.storeCpuPerRequest', 'redis-server CPU per queue_info, side by side (Redis)', 'µs', true, 'storeComparison.median.redis.storeCpuMicrosPerRequest'],
  ['pageInitialGzip', 'page JavaScript before the position shows, gzipped', 'KB', true, (r) => kb(r?.pageWeight?.page?.initialJsGzip)],
  ['gatewayAddedP50', 'latency the gateway adds, p50', 'ms', true, 'gateway.latency.addedP50Ms'],
  ['gatewayThroughput', 'throughput through the gateway ÷ direct', '×', false, 'gateway.throughput.working.ratio'],
  ['rampMemory', 'capacity ramp knee, memory store', 'visitors', false, rampKnee('memory')],
  ['rampRedis', 'capacity ramp knee, Redis store', 'visitors', false, rampKnee('redis'), ['≥', T.rampKnee]],
];

const valueOf = (read: Figure[4], results: Results) => finite(typeof read === 'string' ? at(results, read) : read(results));
/** The visitors of the capacity run a figure comes from. */
const crowdOf = (key: string, results: Results) => (key.startsWith('Redis.') ? results?.capacityRedis : results?.capacity)?.settings?.visitors ?? 0;

/** PASS/MISS of every figure with a goal that `results` measured; `Redis`: the Redis store's, or the others. */
export function figureChecks(results: Results, redis: boolean): TargetCheck[] {
  return FIGURES.flatMap(([key, label, unit, , read, goal]) => {
    const value = valueOf(read, results);
    if (!goal || value === undefined || redis !== /^(Redis\.|redisVs)/.test(key)) return [];
    const [sign, bound, scale] = goal;
    const met = sign === '≤' ? value <= bound : value >= bound;
    return [check(label, `${sign} ${formatFigure(bound, unit)}`, formatFigure(value, unit), scale && crowdOf(key, results) < T.visitorsHeld ? undefined : met)];
  });
}

/** Every figure of `current`, with the previous run's and the ratio where both have it. */
export function compareRuns(current: Results, previous?: Results): ComparedFigure[] {
  return FIGURES.map(([key, label, unit, lowerIsBetter, read]) => {
    const of = (results: Results) => valueOf(read, results);
    const now = of(current);
    const before = previous === undefined ? undefined : of(previous);
    const ratio = now !== undefined && before !== undefined && before !== 0 ? now / before : undefined;
    return { key, label, unit, lowerIsBetter, current: now, previous: before, ratio };
  });
}

/** The previous run's results (`BENCH_BASELINE`, or bench/results/baseline.json), with where they came from. */
export function readBaseline(resultsDir: string): { file: string; date?: string; results: Results } | undefined {
  const file = process.env.BENCH_BASELINE || path.join(resultsDir, 'baseline.json');
  if (!existsSync(file)) return undefined;
  const results = JSON.parse(readFileSync(file, 'utf8'));
  return { file: path.relative(process.cwd(), file), date: typeof results?.date === 'string' ? results.date : undefined, results };
}

/** A figure as the tables print it. */
export function formatFigure(value: number | undefined, unit: Unit): string {
  if (value === undefined) return '–';
  const digits = unit === '×' ? 2 : unit === 'visitors' || unit === '/s' ? 0 : Math.abs(value) >= 100 ? 0 : 1;
  const text = value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit === '' || unit === '×' || unit === 'visitors' ? text : `${text} ${unit}`;
}

/** "this ÷ previous" as the tables print it. */
export const formatRatio = (ratio: number | undefined): string => (ratio === undefined ? '–' : ratio.toFixed(2));

/** `parts`: those the run measured (older reports: unset); `previousRun`: the run it is compared with (baseline.json, or BENCH_BASELINE's). */
type BenchResults = { date: string; machine: Machine; seconds: number; partSeconds?: Record<string, number>; parts?: readonly string[] } & Checked;
type Machine = { cpus: number; cpuModel?: string; memoryGb: number; node: string; loadAverageAtStart: number[]; loadAverageAtEnd: number[] };
type Checked = {
  targets: TargetCheck[];
  targetsRedis?: TargetCheck[];
  opening?: OpeningResult;
  previousRun?: { file: string; date?: string };
  comparison?: readonly ComparedFigure[];
};

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
