/**
 * The run's figures beside the previous run's: the same figure read from both results files (an
 * older file may lack some; those show "–"), and this run ÷ the previous one. The previous run is
 * `bench/results/baseline.json` (a copy of the results the current figures replaced), or the file
 * `BENCH_BASELINE` names.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Results as read back from a file: any part may be missing from an older run, so every read is guarded. */
type Results = any; // eslint-disable-line @typescript-eslint/no-explicit-any
type Unit = 'ms' | 'µs' | 'KB' | 'MiB' | '/s' | '×' | 'visitors' | 'min' | '';

export interface ComparedFigure {
  readonly key: string;
  readonly label: string;
  readonly unit: Unit;
  /** Whether a smaller value is the better one (for reading the ratio). */
  readonly lowerIsBetter: boolean;
  readonly previous?: number;
  readonly current?: number;
  /** This run ÷ the previous one. */
  readonly ratio?: number;
}

/** [key, label, unit, lower is better, where in the results (a dotted path, or a reader)]. */
type Figure = readonly [key: string, label: string, unit: Unit, lowerIsBetter: boolean, read: string | ((results: Results) => unknown)];

const finite = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const at = (results: Results, dotted: string): unknown => dotted.split('.').reduce((value, key) => value?.[key], results);
const kb = (bytes: unknown) => (finite(bytes) === undefined ? undefined : (bytes as number) / 1024);

/** The server figures of one store's capacity run (`capacity` or `capacityRedis`). */
const capacityFigures = (part: string, store: string): Figure[] =>
  (
    [
      ['held', 'visitors held at once, without an error', 'visitors', false, (c) => (c === undefined ? undefined : c?.errors?.total === 0 ? c?.hold?.held : 0)],
      ['releaseP99', 'release → RequestUnqueud read by the visitor, p99', 'ms', true, 'releases.median.p99Ms'],
      ['queueMovedP50', 'release → QueueMoved read at every waiting socket, p50', 'ms', true, 'moves.median.p50Ms'],
      ['queueMovedP99', 'release → QueueMoved read at every waiting socket, p99', 'ms', true, 'moves.median.p99Ms'],
      ['lastWriteP99', "release → the server's last QueueMoved socket written, p99 of batches", 'ms', true, 'fanout.median.lastWriteP99Ms'],
      ['writePerSocket', "the fan-out's own writing time per socket", 'µs', true, 'fanout.median.microsPerSocketP50'],
      ['floorPerSocket', 'one loopback socket write by a bare Node `net` loop (the floor)', 'µs', true, 'fanout.median.floor.microsPerSocketWall'],
      ['ownHoldMax', "server's event loop held by its own work (CPU time in the hold), longest", 'ms', true, 'paced.median.serverOwnHoldMaxMs'],
      ['loopDelayMax', "server's event loop held by the clock (waits for a core included), longest", 'ms', true, 'paced.median.serverLoopDelayMaxMs'],
      ['gcPauseMax', "server's longest GC pause", 'ms', true, 'paced.median.serverGcPauseMaxMs'],
      ['pacedP99', "queue_info at the page's pace, p99", 'ms', true, 'paced.median.p99Ms'],
      ['duringFanoutP99', 'queue_info during a fan-out, p99', 'ms', true, 'fanout.median.queueInfoDuringP99Ms'],
      ['throughputRatio', 'queue_info throughput ÷ bare Node http', '×', false, 'saturation.median.ratio'],
      ['cpuPerRequest', 'server CPU per queue_info', 'µs', true, 'saturation.median.oursCpuMicrosPerRequest'],
      ['memoryAtOnce', 'memory per waiting visitor, RSS right after the arrivals', 'KB', true, (c) => kb(c?.memory?.perVisitorBytes?.rss)],
      ['memorySettled', 'memory per waiting visitor, RSS settled', 'KB', true, (c) => kb(c?.memory?.settled?.perVisitorBytes?.rss)],
    ] as Figure[]
  ).map(([key, label, unit, lower, read]) => [
    `${store}.${key}`,
    `${label} (${store})`,
    unit,
    lower,
    (results: Results) => (typeof read === 'string' ? at(results?.[part], read) : read(results?.[part])),
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
    'storeComparison.median.ratio',
  ],
  ['memory.sideBySideCpuPerRequest', 'server CPU per queue_info, side by side (memory)', 'µs', true, 'storeComparison.median.memory.serverCpuMicrosPerRequest'],
  ['Redis.sideBySideCpuPerRequest', 'server CPU per queue_info, side by side (Redis)', 'µs', true, 'storeComparison.median.redis.serverCpuMicrosPerRequest'],
  ['Redis.storeCpuPerRequest', 'redis-server CPU per queue_info, side by side (Redis)', 'µs', true, 'storeComparison.median.redis.storeCpuMicrosPerRequest'],
  ['estimateSteady', 'wait estimate error, steady rate', 'min', true, 'estimate.median.steadyMaeMinutes'],
  ['estimateBack', 'estimate back within 1 min after the rate halves', 'min', true, 'estimate.median.minutesUntilWithin1'],
  ['pageInitialGzip', 'page JavaScript before the position shows, gzipped', 'KB', true, (r) => kb(r?.pageWeight?.page?.initialJsGzip)],
  ['gatewayAddedP50', 'latency the gateway adds, p50', 'ms', true, 'gateway.latency.addedP50Ms'],
  ['gatewayThroughput', 'throughput through the gateway ÷ direct', '×', false, 'gateway.throughput.working.ratio'],
  ['rampMemory', 'capacity ramp knee, memory store', 'visitors', false, rampKnee('memory')],
  ['rampRedis', 'capacity ramp knee, Redis store', 'visitors', false, rampKnee('redis')],
];

/** Every figure of `current`, with the previous run's and the ratio where both have it. */
export function compareRuns(current: Results, previous?: Results): ComparedFigure[] {
  return FIGURES.map(([key, label, unit, lowerIsBetter, read]) => {
    const of = (results: Results) => finite(typeof read === 'string' ? at(results, read) : read(results));
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
export function formatRatio(ratio: number | undefined): string {
  return ratio === undefined ? '–' : ratio.toFixed(2);
}
