/**
 * Writes the server figures of docs/performance.md from bench/results/latest.json between its
 * markers, so that they are one run's and never typed by hand: run it after that run, as
 * `node --import tsx bench/performance-figures.ts [results file] [Markdown file]`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OPENING_FILE, openingMarkdown } from './admission/opening';
import { compareRuns, formatFigure, formatRatio, readBaseline, type ComparedFigure } from './compare';
import { TARGETS } from './goals';

export const START = '<!-- bench figures: written by `node --import tsx bench/performance-figures.ts` from bench/results/latest.json; do not edit by hand -->';
export const END = '<!-- end of bench figures -->';
/** The opening bursts' block: written from `bench/results/opening.json`, which a run with the `opening` part writes. */
export const OPENING_START = `<!-- opening bursts: written by \`node --import tsx bench/performance-figures.ts\` from bench/results/${OPENING_FILE}; do not edit by hand -->`;
export const OPENING_END = '<!-- end of opening bursts -->';

/** Results as read back from the file: any part may be missing when the run left it out. */
type Results = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const none = 'not measured in this run';
const utc = (date: unknown) => (typeof date === 'string' ? date.replace('T', ' ').slice(0, 16) + ' UTC' : undefined);

/** The Markdown between the markers. */
export function figuresMarkdown(results: Results, previousResults?: Results): string {
  const figures: ComparedFigure[] = results.comparison ?? compareRuns(results, previousResults);
  const comparison = new Map<string, ComparedFigure>(figures.map((figure) => [figure.key, figure]));
  const figure = (key: string) => comparison.get(key);
  /** The figure, marked when it misses its goal (`bound`: the most, or the least when higher is better). */
  const value = (key: string, bound?: number) => {
    const found = figure(key);
    const text = formatFigure(found?.current, found?.unit ?? '');
    if (bound === undefined || found?.current === undefined) return text;
    const missed = found.lowerIsBetter ? found.current > bound : found.current < bound;
    return missed ? `**${text} — missed**` : text;
  };
  const ratio = (key: string) => formatRatio(figure(key)?.ratio);
  /** Only holds past the goal are kept, so a run with none has no longest: it says so rather than "0 ms". */
  const ownHold = (store: string, run: Results) =>
    run?.paced?.median?.serverHoldsOver20Ms === 0 ? `none over ${TARGETS.loopHoldMaxMs} ms` : value(`${store}.ownHoldMax`, TARGETS.loopHoldMaxMs);
  const both = (key: string) => `${ratio(`memory.${key}`)} / ${ratio(`Redis.${key}`)}`;
  const { capacity, capacityRedis: redis, machine = {} } = results;
  const date = utc(results.date) ?? 'an unknown date';
  const previous = utc(results.previousRun?.date ?? previousResults?.date);
  const lines: string[] = [];

  lines.push(
    `From one run of \`npm run bench\` on ${machine.cpus ?? '?'} cores (${machine.cpuModel ?? 'CPU'}, ${machine.memoryGb ?? '?'} GB), the load generator on the same machine, ` +
      `${date}, load average ${(machine.loadAverageAtStart ?? []).join(' ')} at its start (parts: ${(results.parts ?? []).join(', ')}). ` +
      (capacity
        ? `${capacity.settings.visitors.toLocaleString('en-US')} waiting visitors, each held by a real GET with its own cookie through the gateway, on a real WebSocket subscribed to its channel and to \`App.Queue\`, ` +
          `read by ${capacity.settings.visitorProcesses ?? 1} processes, polling queue_info at ${capacity.settings.timeFactor} times the page's pace while the release loop lets in ${capacity.settings.releasePerMinute} a minute. `
        : '') +
      (previous ? `"÷ previous" is this run's figure over the run of ${previous} (\`bench/results/baseline.json\`), memory / Redis. ` : '') +
      'Every figure is a ratio or a distribution taken within the run, so that it holds on a noisy machine; `bench/README.md` says how each is taken.',
  );
  lines.push('', '| target | goal | memory store | Redis store | ÷ previous |', '| --- | --- | --- | --- | --- |');
  const row = (name: string, goal: string, memory: string, inRedis: string, against: string) =>
    lines.push(`| ${name} | ${goal} | ${memory} | ${inRedis} | ${against} |`);
  const cap = (store: Results, read: (c: Results) => string) => (store ? read(store) : none);
  /** A row of one figure on both stores, marked where it misses `bound`. */
  const stores = (name: string, goal: string, key: string, bound?: number) =>
    row(name, goal, value(`memory.${key}`, bound), value(`Redis.${key}`, bound), both(key));
  row(
    'waiting visitors held at once',
    `${TARGETS.visitorsHeld.toLocaleString('en-US')}, no errors`,
    cap(capacity, (c) => `${c.hold.held.toLocaleString('en-US')}, ${c.errors.total} errors`),
    cap(redis, (c) => `${c.hold.held.toLocaleString('en-US')}, ${c.errors.total} errors`),
    both('held'),
  );
  stores('release → `RequestUnqueud` read by the visitor, p99', `≤ ${TARGETS.releaseToDeliveryP99Ms} ms`, 'releaseP99', TARGETS.releaseToDeliveryP99Ms);
  row(
    'release → `QueueMoved` read at every waiting socket, p99 (p50)',
    `≤ ${TARGETS.fanoutP99Ms} ms`,
    `${value('memory.queueMovedP99', TARGETS.fanoutP99Ms)} (${value('memory.queueMovedP50')})`,
    `${value('Redis.queueMovedP99', TARGETS.fanoutP99Ms)} (${value('Redis.queueMovedP50')})`,
    both('queueMovedP99'),
  );
  stores("release → the server's last `QueueMoved` socket written, p99 of batches", `≤ ${TARGETS.fanoutP99Ms} ms`, 'lastWriteP99', TARGETS.fanoutP99Ms);
  row(
    "server's event loop held by its own work, longest (by the clock, waits for a core included)",
    `≤ ${TARGETS.loopHoldMaxMs} ms`,
    `${ownHold('memory', capacity)} (${value('memory.loopDelayMax')})`,
    `${ownHold('Redis', redis)} (${value('Redis.loopDelayMax')})`,
    both('loopDelayMax'),
  );
  stores('queue_info answered during a fan-out, p99', `≤ ${TARGETS.queueInfoDuringFanoutP99Ms} ms`, 'duringFanoutP99', TARGETS.queueInfoDuringFanoutP99Ms);
  stores(
    'queue_info throughput ÷ a bare Node `http` server answering constant JSON',
    `≥ ${TARGETS.throughputRatio}`,
    'throughputRatio',
    TARGETS.throughputRatio,
  );
  row(
    'queue_info throughput, Redis ÷ memory (both servers side by side, alternating slices)',
    `≥ ${TARGETS.redisThroughputVsMemory}`,
    '',
    value('redisVsMemoryThroughput', TARGETS.redisThroughputVsMemory),
    ratio('redisVsMemoryThroughput'),
  );
  stores('server CPU per queue_info', '', 'cpuPerRequest');
  row(
    'CPU per queue_info, side by side: our server (+ redis-server)',
    '',
    value('memory.sideBySideCpuPerRequest'),
    `${value('Redis.sideBySideCpuPerRequest')} + ${value('Redis.storeCpuPerRequest')}`,
    `${ratio('memory.sideBySideCpuPerRequest')} / ${ratio('Redis.sideBySideCpuPerRequest')}`,
  );
  row(
    'server memory per waiting visitor (RSS after GC, settled)',
    `≤ ${(TARGETS.memoryPerVisitorBytes / 1024).toFixed(0)} KB`,
    value('memory.memorySettled', TARGETS.memoryPerVisitorBytes / 1024),
    `${value('Redis.memorySettled', TARGETS.memoryPerVisitorBytes / 1024)}${redis?.memory?.storePerVisitorBytes ? `, and ${formatFigure(redis.memory.storePerVisitorBytes / 1024, 'KB')} in Redis` : ''}`,
    both('memorySettled'),
  );
  stores('the same, right after the arrivals', '', 'memoryAtOnce');
  const ramp = (store: string) => (results.ramps ?? []).find((one: Results) => one?.settings?.store === store);
  const knee = (store: string) => {
    const found = ramp(store);
    if (!found) return none;
    const text = found.knee.toLocaleString('en-US');
    const shown = store === 'redis' && found.knee < TARGETS.rampKnee ? `**${text} — missed**` : text;
    return `${shown} (${found.settings.serverProcesses} process${found.settings.serverProcesses > 1 ? 'es' : ''}; stopped by ${found.stoppedBy})`;
  };
  row(
    "capacity ramp: visitors at the page's own pace until the first error or a release p99 over 1 s",
    `≥ ${TARGETS.rampKnee.toLocaleString('en-US')}`,
    knee('memory'),
    knee('redis'),
    `${ratio('rampMemory')} / ${ratio('rampRedis')}`,
  );

  lines.push('', ...readingNotes(results));

  return lines.join('\n');
}

/** How to read the server's figures of this run, each number taken from it. */
function readingNotes(results: Results): string[] {
  const notes: string[] = [];
  const ms = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? `${value.toFixed(value >= 100 ? 0 : 1)} ms` : '–');
  const us = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? `${value.toFixed(1)} µs` : '–');
  for (const [store, capacity] of [
    ['memory', results.capacity],
    ['Redis', results.capacityRedis],
  ] as const) {
    if (!capacity?.fanout?.median) continue;
    const fanout = capacity.fanout.median;
    const sockets = capacity.moves?.median?.framesPerBatchP50;
    const floor = fanout.floor;
    notes.push(
      `- **Fan-out, ${store} store:** a bare Node \`net\` loop writing one frame to each of ${floor?.sockets?.toLocaleString('en-US') ?? '–'} loopback sockets on this machine ` +
        `takes ${us(floor?.microsPerSocketWall)} a socket (the floor, measured in the same run), and the server wrote each move at ${us(fanout.microsPerSocketP50)} a socket: ` +
        `${typeof sockets === 'number' ? sockets.toLocaleString('en-US') : '–'} sockets are ${ms(typeof sockets === 'number' && floor ? (sockets * floor.microsPerSocketWall) / 1000 : Number.NaN)} of one core at the floor, ` +
        `before anything else the server does (queue_info meanwhile: p99 ${ms(fanout.queueInfoDuringP99Ms)}). ` +
        `${fanout.superseded ?? 0} of ${fanout.moves ?? '–'} moves were stopped on the way by a newer one.`,
    );
    notes.push(
      `- **The event loop, ${store} store:** ` +
        (capacity.paced?.median?.serverHoldsOver20Ms === 0
          ? `no hold past ${TARGETS.loopHoldMaxMs} ms by the server's own work (its main thread's CPU time in the hold) in the median run; `
          : `its longest hold by the server's own work was ${ms(capacity.paced?.median?.serverOwnHoldMaxMs)} (its main thread's CPU time in it); `) +
        `by the clock ${ms(capacity.paced?.median?.serverLoopDelayMaxMs)}, the rest being the server waiting for one of the two cores, which the visitors' and poller's processes share; ` +
        `longest GC pause ${ms(capacity.paced?.median?.serverGcPauseMaxMs)}.`,
    );
  }
  const sideBySide = results.storeComparison?.median;
  if (sideBySide) {
    notes.push(
      `- **Redis store beside the memory store:** both servers held ${Number(results.storeComparison.settings.visitors).toLocaleString('en-US')} waiting visitors each and one closed-loop poller took turns on them; ` +
        `a queue_info cost our server ${formatFigure(sideBySide.redis.serverCpuMicrosPerRequest, 'µs')} on Redis and ${formatFigure(sideBySide.memory.serverCpuMicrosPerRequest, 'µs')} on memory, ` +
        `and redis-server ${formatFigure(sideBySide.redis.storeCpuMicrosPerRequest, 'µs')} more (the poller ${formatFigure(sideBySide.redis.generatorCpuMicrosPerRequest, 'µs')} / ${formatFigure(sideBySide.memory.generatorCpuMicrosPerRequest, 'µs')}), on the same two cores.`,
    );
  }
  for (const ramp of results.ramps ?? []) {
    const last = ramp.steps?.at(-1);
    notes.push(
      `- **Ramp, ${ramp.settings.store} store:** knee ${Number(ramp.knee).toLocaleString('en-US')} visitors (${ramp.settings.serverProcesses} server process${ramp.settings.serverProcesses > 1 ? 'es' : ''}), stopped by ${ramp.stoppedBy}` +
        (last
          ? `; at the last step, queue_info at the page's pace answered ${Math.round(last.polls.perSecond).toLocaleString('en-US')} a second (p99 ${ms(last.polls.latencyMs.p99)}), ` +
            `server CPU ${last.servers.map((server: Results) => `${Math.round(server.cpu * 100)}%`).join(' + ')} of a core, the visitors' processes' event loops late by up to ${ms(last.visitorsLoopDelayMs?.max)}.`
          : '.'),
    );
  }
  return notes;
}

/** Replaces what lies between the markers of `markdown` (the server figures', by default) with `figures`. */
export function withFigures(markdown: string, figures: string, [from, to] = [START, END]): string {
  const start = markdown.indexOf(from);
  const end = markdown.indexOf(to);
  if (start === -1 || end === -1 || end < start) throw new Error(`No ${from} … ${to} block to write the figures into.`);
  return `${markdown.slice(0, start + from.length)}\n${figures}\n${markdown.slice(end)}`;
}

/** The opening bursts' block, from the file a run with the `opening` part wrote. */
export function openingFigures(saved: Results): string {
  return `From the run of ${utc(saved.date) ?? 'an unknown date'} (\`BENCH_ONLY=opening npm run bench\`).\n\n${openingMarkdown(saved.opening)}`;
}

function main(): void {
  const root = path.resolve(__dirname, '..');
  const [resultsFile = path.join(root, 'bench', 'results', 'latest.json'), markdownFile = path.join(root, 'docs', 'performance.md')] = process.argv.slice(2);
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  const previous = results.comparison ? undefined : readBaseline(path.join(root, 'bench', 'results'))?.results;
  let markdown = withFigures(readFileSync(markdownFile, 'utf8'), figuresMarkdown(results, previous));
  const openingFile = path.join(root, 'bench', 'results', OPENING_FILE);
  if (existsSync(openingFile)) markdown = withFigures(markdown, openingFigures(JSON.parse(readFileSync(openingFile, 'utf8'))), [OPENING_START, OPENING_END]);
  writeFileSync(markdownFile, markdown);
  console.log(`${path.relative(process.cwd(), markdownFile)}: figures written from ${path.relative(process.cwd(), resultsFile)} (${results.date}).`);
}

if (require.main === module) main();
