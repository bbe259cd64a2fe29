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

export interface Figure {
  readonly key: string;
  readonly label: string;
  readonly unit: 'ms' | 'µs' | 'KB' | 'MiB' | '/s' | '×' | 'visitors' | 'min' | '';
  /** Whether a smaller value is the better one (for reading the ratio). */
  readonly lowerIsBetter: boolean;
  readonly read: (results: Results) => number | undefined;
}

export interface ComparedFigure {
  readonly key: string;
  readonly label: string;
  readonly unit: Figure['unit'];
  readonly lowerIsBetter: boolean;
  readonly previous?: number;
  readonly current?: number;
  /** This run ÷ the previous one. */
  readonly ratio?: number;
}

const finite = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const max = (values: unknown): number | undefined => {
  const numbers = Array.isArray(values) ? values.map(finite).filter((value): value is number => value !== undefined) : [];
  return numbers.length > 0 ? Math.max(...numbers) : undefined;
};
const kb = (bytes: unknown) => (finite(bytes) === undefined ? undefined : (bytes as number) / 1024);

/** The server figures of one store's capacity run (`capacity` or `capacityRedis`). */
function capacityFigures(part: 'capacity' | 'capacityRedis', store: string): Figure[] {
  const figure = (key: string, label: string, unit: Figure['unit'], lowerIsBetter: boolean, read: (capacity: Results) => unknown): Figure => ({
    key: `${store}.${key}`,
    label: `${label} (${store})`,
    unit,
    lowerIsBetter,
    read: (results) => finite(read(results?.[part])),
  });
  return [
    figure('held', 'visitors held at once, without an error', 'visitors', false, (c) =>
      c === undefined ? undefined : c?.errors?.total === 0 ? c?.hold?.held : 0,
    ),
    figure('releaseP99', 'release → RequestUnqueud read by the visitor, p99', 'ms', true, (c) => c?.releases?.median?.p99Ms),
    figure('queueMovedP50', 'release → QueueMoved read at every waiting socket, p50', 'ms', true, (c) => c?.moves?.median?.p50Ms),
    figure('queueMovedP99', 'release → QueueMoved read at every waiting socket, p99', 'ms', true, (c) => c?.moves?.median?.p99Ms),
    figure('lastWriteP99', "release → the server's last QueueMoved socket written, p99 of batches", 'ms', true, (c) => c?.fanout?.median?.lastWriteP99Ms),
    figure('writePerSocket', "the fan-out's own writing time per socket", 'µs', true, (c) => c?.fanout?.median?.microsPerSocketP50),
    figure(
      'floorPerSocket',
      'one loopback socket write by a bare Node `net` loop (the floor)',
      'µs',
      true,
      (c) => c?.fanout?.median?.floor?.microsPerSocketWall,
    ),
    figure('ownHoldMax', "server's event loop held by its own work (CPU time in the hold), longest", 'ms', true, (c) => c?.paced?.median?.serverOwnHoldMaxMs),
    figure(
      'loopDelayMax',
      "server's event loop held by the clock (waits for a core included), longest",
      'ms',
      true,
      (c) => c?.paced?.median?.serverLoopDelayMaxMs ?? max(c?.paced?.runs?.map((run: Results) => run?.serverLoopDelayMs?.max)),
    ),
    figure('gcPauseMax', "server's longest GC pause", 'ms', true, (c) => c?.paced?.median?.serverGcPauseMaxMs),
    figure('pacedP99', "queue_info at the page's pace, p99", 'ms', true, (c) => c?.paced?.median?.p99Ms),
    figure('duringFanoutP99', 'queue_info during a fan-out, p99', 'ms', true, (c) => c?.fanout?.median?.queueInfoDuringP99Ms),
    figure('throughputRatio', 'queue_info throughput ÷ bare Node http', '×', false, (c) => c?.saturation?.median?.ratio),
    figure('cpuPerRequest', 'server CPU per queue_info', 'µs', true, (c) => c?.saturation?.median?.oursCpuMicrosPerRequest),
    figure('memoryAtOnce', 'memory per waiting visitor, RSS right after the arrivals', 'KB', true, (c) => kb(c?.memory?.perVisitorBytes?.rss)),
    figure('memorySettled', 'memory per waiting visitor, RSS settled', 'KB', true, (c) => kb(c?.memory?.settled?.perVisitorBytes?.rss)),
  ];
}

export const FIGURES: readonly Figure[] = [
  ...capacityFigures('capacity', 'memory'),
  ...capacityFigures('capacityRedis', 'Redis'),
  {
    key: 'redisVsMemoryThroughput',
    label: 'queue_info throughput, Redis store ÷ memory store (side by side, alternating slices)',
    unit: '×',
    lowerIsBetter: false,
    read: (results) => finite(results?.storeComparison?.median?.ratio),
  },
  {
    key: 'memory.sideBySideCpuPerRequest',
    label: 'server CPU per queue_info, side by side (memory)',
    unit: 'µs',
    lowerIsBetter: true,
    read: (results) => finite(results?.storeComparison?.median?.memory?.serverCpuMicrosPerRequest),
  },
  {
    key: 'Redis.sideBySideCpuPerRequest',
    label: 'server CPU per queue_info, side by side (Redis)',
    unit: 'µs',
    lowerIsBetter: true,
    read: (results) => finite(results?.storeComparison?.median?.redis?.serverCpuMicrosPerRequest),
  },
  {
    key: 'Redis.storeCpuPerRequest',
    label: 'redis-server CPU per queue_info, side by side (Redis)',
    unit: 'µs',
    lowerIsBetter: true,
    read: (results) => finite(results?.storeComparison?.median?.redis?.storeCpuMicrosPerRequest),
  },
  {
    key: 'estimateSteady',
    label: 'wait estimate error, steady rate',
    unit: 'min',
    lowerIsBetter: true,
    read: (r) => finite(r?.estimate?.median?.steadyMaeMinutes),
  },
  {
    key: 'estimateBack',
    label: 'estimate back within 1 min after the rate halves',
    unit: 'min',
    lowerIsBetter: true,
    read: (r) => finite(r?.estimate?.median?.minutesUntilWithin1),
  },
  {
    key: 'pageInitialGzip',
    label: 'page JavaScript before the position shows, gzipped',
    unit: 'KB',
    lowerIsBetter: true,
    read: (r) => kb(r?.pageWeight?.page?.initialJsGzip),
  },
  { key: 'gatewayAddedP50', label: 'latency the gateway adds, p50', unit: 'ms', lowerIsBetter: true, read: (r) => finite(r?.gateway?.latency?.addedP50Ms) },
  {
    key: 'gatewayThroughput',
    label: 'throughput through the gateway ÷ direct',
    unit: '×',
    lowerIsBetter: false,
    read: (r) => finite(r?.gateway?.throughput?.working?.ratio),
  },
  { key: 'rampMemory', label: 'capacity ramp knee, memory store', unit: 'visitors', lowerIsBetter: false, read: (r) => rampKnee(r, 'memory') },
  { key: 'rampRedis', label: 'capacity ramp knee, Redis store', unit: 'visitors', lowerIsBetter: false, read: (r) => rampKnee(r, 'redis') },
];

function rampKnee(results: Results, store: string): number | undefined {
  return finite((results?.ramps as Results[] | undefined)?.find((ramp) => ramp?.settings?.store === store)?.knee);
}

/** Every figure of `current`, with the previous run's and the ratio where both have it. */
export function compareRuns(current: Results, previous?: Results): ComparedFigure[] {
  return FIGURES.map(({ key, label, unit, lowerIsBetter, read }) => {
    const now = read(current);
    const before = previous === undefined ? undefined : read(previous);
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
export function formatFigure(value: number | undefined, unit: Figure['unit']): string {
  if (value === undefined) return '–';
  const digits = unit === '×' ? 2 : unit === 'visitors' || unit === '/s' ? 0 : Math.abs(value) >= 100 ? 0 : 1;
  const text = value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  if (unit === '' || unit === '×') return text;
  if (unit === 'visitors') return text;
  return `${text} ${unit}`;
}

/** "this ÷ previous" as the tables print it. */
export function formatRatio(ratio: number | undefined): string {
  return ratio === undefined ? '–' : ratio.toFixed(2);
}
