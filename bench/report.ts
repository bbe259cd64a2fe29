import type { AdmissionResult, RoomResult } from './admission/run-admission';
import { openingMarkdown, type OpeningResult } from './admission/opening';
import type { RampResult } from './capacity/ramp';
import type { CapacityResult } from './capacity/run-capacity';
import type { StoreComparisonResult } from './capacity/stores';
import { formatFigure, formatRatio, type ComparedFigure } from './compare';
import type { EstimateResult } from './estimate-accuracy';
import type { DropResult } from './drop';
import type { MillionResult } from './million';
import type { DownloadFigures, GatewayOverheadResult, ThroughputFigures } from './gateway-overhead';
import type { PageLoadResult } from './page-load';
import type { PageWeightResult } from './page-weight';
import { connectorPassReport, type ConnectorPassResult } from './connector-pass';
import type { BotCheckResult } from './bot-check';
import { CPU_SLOWDOWN } from './slow-phone';
import { TARGETS, type TargetCheck } from './goals';
import { healthy } from './targets';

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
  readonly botCheck?: BotCheckResult;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '–');

/** The Markdown summary of one benchmark run. */
export function renderMarkdown(results: BenchResults): string {
  const lines: string[] = [];
  const { machine } = results;
  lines.push('# Waiting Room benchmark');
  lines.push('');
  lines.push(
    `${results.date} · ${machine.cpus} × ${machine.cpuModel ?? 'CPU'} · ${machine.memoryGb} GB · Node ${machine.node} · ` +
      `load average ${machine.loadAverageAtStart.join(' ')} at start, ${machine.loadAverageAtEnd.join(' ')} at end · ${fixed(results.seconds)} s`,
  );
  if (results.parts) {
    lines.push('');
    lines.push(
      `Parts measured in this run: ${results.parts.join(', ')}` +
        (results.partSeconds
          ? ` (${Object.entries(results.partSeconds)
              .map(([part, seconds]) => `${part} ${fixed(seconds)} s`)
              .join(', ')})`
          : '') +
        '.',
    );
  }
  lines.push('');
  lines.push('## Targets');
  lines.push('');
  lines.push(...targetTable(results.targets));
  if (results.targetsRedis) {
    lines.push('');
    lines.push('With the Redis store:');
    lines.push('');
    lines.push(...targetTable(results.targetsRedis));
  }
  if (results.comparison) lines.push('', ...comparison(results.comparison, results.previousRun));
  lines.push('');
  lines.push(...pageWeight(results.pageWeight));
  if (results.pageLoad) lines.push('', ...pageLoad(results.pageLoad));
  if (results.capacity) lines.push('', ...capacity(results.capacity, 'memory store'));
  if (results.capacityRedis) lines.push('', ...capacity(results.capacityRedis, 'Redis store'));
  if (results.storeComparison) lines.push('', ...storeComparison(results.storeComparison));
  if (results.estimate) lines.push('', ...estimate(results.estimate, results.estimateVariants ?? []));
  if (results.gateway) lines.push('', ...gatewayOverhead(results.gateway));
  if (results.admission) lines.push('', ...admission(results.admission));
  if (results.opening) lines.push('', '## Opening bursts (adaptive admission, virtual clock)', '', openingMarkdown(results.opening));
  if (results.drop) lines.push('', ...drop(results.drop));
  if (results.million) lines.push('', ...million(results.million));
  for (const ramp of results.ramps ?? []) lines.push('', ...rampReport(ramp));
  if (results.connectorPass) lines.push('', ...connectorPassReport(results.connectorPass));
  if (results.botCheck) lines.push('', ...botCheck(results.botCheck));
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

function rampReport(result: RampResult): string[] {
  const { settings } = result;
  return [
    `## Capacity ramp (${settings.store} store)`,
    '',
    `${settings.serverProcesses} server process(es)${settings.serverProcesses > 1 ? ' (one per core, sharing the line and the realtime events through Redis; the visitors spread over them in turn)' : ''}, ` +
      `${settings.visitorProcesses} visitors' processes and ${settings.pollers} pollers on the same machine. Each step adds ${settings.step} visitors (held by a GET with their own cookie, ` +
      `a WebSocket on their channel and App.Queue, queue_request), then everyone polls queue_info at the page's own pace (every 5 s and 60 s) for ${settings.measureSeconds} s ` +
      `while the release loop releases ${settings.releasePerMinute} a minute. The ramp stops at the first error or a release p99 over ${settings.releaseP99LimitMs} ms.`,
    '',
    `Knee: **${result.knee} visitors** waiting; stopped by ${result.stoppedBy}.`,
    '',
    '| waiting | errors | release p99 ms | queue_info /s | queue_info p99 ms | QueueMoved read p99 ms | last written p99 ms | server CPU | loop delay max ms | server RSS MiB |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...result.steps.map(
      (step) =>
        `| ${step.waiting} | ${step.errors.total} | ${fixed(step.releases.latencyMs.p99, 1)} | ${fixed(step.polls.perSecond)} | ${fixed(step.polls.latencyMs.p99, 1)} | ` +
        `${fixed(step.moves.latencyMs.p99, 1)} | ${fixed(step.fanout.lastWriteMs.p99, 1)} | ${step.servers.map((server) => `${fixed(server.cpu * 100)}%`).join(' + ')} | ` +
        `${fixed(Math.max(...step.servers.map((server) => server.loopDelayMaxMs)), 1)} | ${step.servers.map((server) => fixed(server.rss / 2 ** 20)).join(' + ')} |`,
    ),
  ];
}

function pageWeight(result: PageWeightResult): string[] {
  const { page, naive, ratio } = result;
  return [
    '## Page weight (gzipped JavaScript)',
    '',
    `Built by \`build.mjs\` in this run, beside a naive bundle of the same app and dependencies (one esbuild file, everything eager); ${result.compression}; ${result.runsNote}.`,
    '',
    '| bundle | gzip | raw | vs naive |',
    '| --- | --- | --- | --- |',
    `| page, initial (before the position shows) | ${kb(page.initialJsGzip)} | ${kb(page.initialJsBytes)} | ${fixed(ratio.initialToNaive, 2)} |`,
    `| page, all JavaScript | ${kb(page.allJsGzip)} | ${kb(page.allJsBytes)} | ${fixed(ratio.allToNaive, 2)} |`,
    `| naive single bundle | ${kb(naive.gzip)} | ${kb(naive.bytes)} | 1.00 |`,
    '',
    `Initial JavaScript budget of the build: ${kb(page.budgetInitialJsGzip)}; the files the build preloads and the view come to ${kb(page.initialJsGzip)} (the check itself is on what Chromium fetches, in the page-load part).` +
      (page.wire
        ? ` Sent Brotli-compressed: ${kb(page.initialJsBrotli)}; with the HTML and the CSS, ${kb(page.wire.total)} of the build's own wire budget of ${kb(page.wire.budget)} — ${page.wire.withinBudget ? 'within' : 'OVER'}.`
        : ''),
  ];
}

function pageLoad(result: PageLoadResult): string[] {
  const { settings, median: figures } = result;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const t = figures.timeline;
  const first = result.runs[0];
  return [
    '## Page load on a slow phone (Chromium)',
    '',
    `The real server and the page built in this run, in Chromium ${settings.chromium}: DevTools' Fast 3G (${settings.network.latency} ms, ` +
      `${((settings.network.downloadThroughput * 8) / 1e6).toFixed(2)} Mbit/s down, ${((settings.network.uploadThroughput * 8) / 1e3).toFixed(0)} Kbit/s up) and the CPU ${settings.cpuSlowdown}× slower, ` +
      `set through the DevTools protocol; a fresh context (empty cache) for each of ${settings.runs} runs, then a reload with the HTTP cache. ` +
      `Position shown: ${settings.positionShown}. Bytes: the browser's own network events (encodedDataLength: headers and body as received), and WebSocket frames.`,
    '',
    '| figure | median | per run |',
    '| --- | --- | --- |',
    `| time to position | ${seconds(figures.positionShownMs)} | ${result.runs.map((run) => seconds(run.timeline.positionShown)).join(', ')} |`,
    `| JavaScript fetched before the position shows, gzipped (budget ${kb(settings.jsBudgetGzip)}) | ${kb(figures.jsBeforePositionGzip)} | ${result.runs.map((run) => kb(run.jsBeforePosition.gzip)).join(', ')} |`,
    `| bytes on the wire before the position shows | ${kb(figures.wireBytesBeforePosition)} | ${result.runs.map((run) => kb(run.wireBytesBeforePosition)).join(', ')} |`,
    `| reload: scripts and styles downloaded | ${figures.reloadScriptAndStyleBytes} bytes | ${result.runs.map((run) => run.reload.scriptAndStyleBytes).join(', ')} |`,
    `| reload: time to position | ${seconds(figures.reloadPositionShownMs)} | ${result.runs.map((run) => seconds(run.reload.positionShownMs)).join(', ')} |`,
    '',
    `The way there (medians, from the navigation's start): HTML received ${fixed(t.htmlReceived)} ms; start-up script ${fixed(t.startUpScriptReceived)} ms; ` +
      `socket opening ${fixed(t.socketOpening)} ms, open ${fixed(t.socketOpen)} ms; first queue_info sent ${fixed(t.firstQueueInfoSent)} ms, answered ${fixed(t.firstQueueInfoAnswered)} ms; ` +
      `view received ${fixed(t.viewReceived)} ms; position shown ${fixed(t.positionShown)} ms.`,
    '',
    ...(first
      ? [
          'What the browser fetched (first run): ' +
            first.resources
              .map((res) => {
                const when =
                  res.receivedAtMs === null ? `sent at ${res.requestedAtMs} ms, ${res.failed ?? 'unfinished'}` : `${res.requestedAtMs}–${res.receivedAtMs} ms`;
                return `${res.name} ${res.bytes} B${res.encoding === 'identity' ? '' : ` ${res.encoding}`} ${when}`;
              })
              .join('; ') +
            '.',
        ]
      : []),
  ];
}

function capacity(result: CapacityResult, store: string): string[] {
  const { settings, memory, paced, releases, saturation, hold, limits } = result;
  const median = saturation.median;
  return [
    `## Server capacity (${store})`,
    '',
    `${settings.visitors} anonymous visitors, each held by a GET of /checkout with its own cookie, subscribed over a real WebSocket ` +
      `(Pusher protocol 7) to its own channel and to App.Queue, and sending queue_request; our server, the bare server and the queue_info poller each in its own process, the visitors in ${settings.visitorProcesses ?? 1} (each reading its share of the sockets, from a loopback address of its own). ` +
      `Open files: ${limits.openFiles ? `${limits.openFiles.soft} (soft limit, left as it was)` : 'unknown'}; local ports ${limits.localPorts ? `${limits.localPorts.low}–${limits.localPorts.high}` : 'unknown'}; about ${limits.socketsPerProcess} sockets per process.`,
    '',
    `- held: ${hold.held} in ${fixed(Number(hold.half.seconds) + Number(hold.full.seconds), 1)} s (plus ${hold.half.admitted + hold.full.admitted} admitted before the line formed); errors in total: ${result.errors.total} ${JSON.stringify(result.errors)}`,
    ...(memory.settled
      ? [
          `- memory per waiting visitor, settled (after GC, once V8 gave back what it grew while the visitors arrived; baseline → ${hold.held} held): RSS **${kb(memory.settled.perVisitorBytes.rss)}**, JS heap ${kb(memory.settled.perVisitorBytes.heapUsed)}; ` +
            `second half only: RSS ${kb(memory.settled.perVisitorBytesSecondHalf.rss)}, heap ${kb(memory.settled.perVisitorBytesSecondHalf.heapUsed)}; ` +
            `server RSS ${fixed(memory.settled.baseline.rss / 2 ** 20)} → ${fixed(memory.settled.full.rss / 2 ** 20)} MiB`,
        ]
      : []),
    `- memory per waiting visitor right after the arrivals (after GC, baseline → ${hold.held} held): RSS ${kb(memory.perVisitorBytes.rss)}, JS heap ${kb(memory.perVisitorBytes.heapUsed)}, external ${kb(memory.perVisitorBytes.external)}; second half only: RSS ${kb(memory.perVisitorBytesSecondHalf.rss)}, heap ${kb(memory.perVisitorBytesSecondHalf.heapUsed)}` +
      (memory.storePerVisitorBytes === undefined ? '' : `; in Redis (used_memory): ${kb(memory.storePerVisitorBytes)}`),
    `- paced polling (the page's 5 s and 60 s polls ×${settings.timeFactor}, ${settings.pollSockets} keep-alive sockets; median of ${paced.runs.length} runs of ${settings.pollSeconds} s after a ${paced.runs[0]?.warmupSeconds ?? 0} s warm-up): ` +
      `${fixed(paced.median.perSecond)}/s of ${fixed(paced.median.offeredPerSecond)}/s offered, p50 ${paced.median.p50Ms} ms, p99 ${paced.median.p99Ms} ms ` +
      `(per run p99: ${paced.runs.map((run) => run.latencyMs.p99).join(', ')} ms); server CPU ${fixed(paced.median.serverCpu * 100)}% of a core, poller ${fixed(paced.median.generatorCpu * 100)}%, ` +
      `polls waiting in the poller for a socket p99 ${paced.median.queuedInGeneratorP99Ms} ms; ` +
      `server event-loop delay max ${fixed(Math.max(...paced.runs.map((run) => run.serverLoopDelayMs.max)), 1)} ms, of its own work ${fixed(paced.median.serverOwnHoldMaxMs, 1)} ms ` +
      `(its main thread's CPU time; GC pauses in that hold ${fixed(paced.median.serverOwnHoldGcMs ?? Number.NaN, 1)} ms; ` +
      `${paced.median.serverHoldsOver20Ms} holds over 20 ms, ${paced.median.serverHoldsWithGc ?? '–'} with a GC pause) ` +
      `(per run max: ${paced.runs.map((run) => fixed(run.serverLoopDelayMs.max, 1)).join(', ')} ms; p99: ${paced.runs.map((run) => fixed(run.serverLoopDelayMs.p99, 1)).join(', ')} ms)`,
    `- release to delivery (store decision → RequestUnqueud frame read at the visitor's socket; ${settings.releasePerMinute}/min, released by the release loop during the paced polling): ` +
      `${releases.median.delivered} delivered, ${releases.median.notDelivered} lost; median of ${releases.runs.length} runs: p50 ${releases.median.p50Ms} ms, p90 ${releases.median.p90Ms} ms, p99 ${releases.median.p99Ms} ms ` +
      `(per run p99: ${releases.runs.map((run) => run.latencyMs.p99).join(', ')} ms); of which in the server (decision → handed to the socket) p99 ${releases.median.inServerP99Ms} ms, ` +
      `socket to the visitor's process p99 ${releases.median.toVisitorP99Ms} ms`,
    ...(result.moves
      ? [
          `- QueueMoved on App.Queue (after each release batch, to every waiting visitor's socket; store decision → a move carrying the batch's served, or a later one, read at the visitor's socket): ` +
            `${result.moves.median.counted} socket reads of ${result.moves.median.batches} batches (${result.moves.median.framesPerBatchP50} sockets a batch), ${result.moves.median.missedByWaiting} waiting visitors missed the last move; ` +
            `median of ${result.moves.runs.length} runs: p50 ${result.moves.median.p50Ms} ms, p90 ${result.moves.median.p90Ms} ms, p99 ${result.moves.median.p99Ms} ms ` +
            `(per run p99: ${result.moves.runs.map((run) => run.latencyMs.p99).join(', ')} ms); handed to the sockets → the visitors' process p99 ${result.moves.median.toVisitorP99Ms} ms`,
        ]
      : []),
    ...(result.fanout
      ? [
          `- the same fan-outs on the server's own clock (release decision → its last socket written with a move carrying it, one value a batch): p50 ${result.fanout.median.lastWriteP50Ms} ms, **p99 ${result.fanout.median.lastWriteP99Ms} ms**; ` +
            `${result.fanout.median.moves ?? '–'} moves, ${result.fanout.median.superseded ?? '–'} of them stopped by a newer one on the way ` +
            `(first socket written p99 ${result.fanout.median.firstWriteP99Ms} ms; first to last socket p50 ${result.fanout.median.writingP50Ms} ms, ${result.fanout.median.wallMicrosPerSocketP50} µs a socket with everything else the server did meanwhile, ` +
            `of which writing ${result.fanout.median.microsPerSocketP50} µs a socket, where a bare Node \`net\` server writing ${result.fanout.median.floor?.sockets ?? '–'} loopback sockets in a plain loop takes ${result.fanout.median.floor?.microsPerSocketWall ?? '–'} µs (CPU ${result.fanout.median.floor?.microsPerSocketCpu ?? '–'} µs); ` +
            `queue_info answers under way during a fan-out: ${result.fanout.median.queueInfoDuringCount}, p99 **${result.fanout.median.queueInfoDuringP99Ms} ms**; ` +
            `server GC pauses: longest ${fixed(paced.median.serverGcPauseMaxMs, 1)} ms (by kind, worst run: ${JSON.stringify(paced.runs.reduce((worst, run) => (run.serverGc.maxMs > worst.maxMs ? run.serverGc : worst), paced.runs[0].serverGc).maxByKind)})`,
        ]
      : []),
    `- queue_info throughput, closed loop over ${settings.connections} keep-alive connections, median of ${saturation.runs.length} runs, each ${settings.saturateSeconds} s per server in 8 alternating slices (bare, ours, ours, bare, …) after a 1 s warm-up on each: ` +
      `ours ${fixed(median.oursPerSecond)}/s (p50 ${median.oursP50Ms} ms, p99 ${median.oursP99Ms} ms, server CPU ${fixed(median.oursServerCpu * 100)}%), ` +
      `bare Node http ${fixed(median.barePerSecond)}/s (p50 ${median.bareP50Ms} ms, p99 ${median.bareP99Ms} ms, CPU ${fixed(median.bareServerCpu * 100)}%); ` +
      `ratio **${fixed(median.ratio, 2)}** (per run: ${saturation.runs.map((run) => fixed(run.ratio, 2)).join(', ')}); load generator CPU ${fixed(median.generatorCpuOurs * 100)}% / ${fixed(median.generatorCpuBare * 100)}%`,
    `- server CPU per answered queue_info: ours ${median.oursCpuMicrosPerRequest} µs, bare ${median.bareCpuMicrosPerRequest} µs` +
      (median.storeCpu === undefined ? '' : `; redis-server meanwhile used ${fixed(median.storeCpu * 100)}% of a core`),
  ];
}

function storeComparison(result: StoreComparisonResult): string[] {
  const { settings, median } = result;
  const store = (figures: StoreComparisonResult['median']['memory']) =>
    `${fixed(figures.perSecond)}/s (p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms), server CPU ${figures.serverCpuMicrosPerRequest} µs a request, poller ${figures.generatorCpuMicrosPerRequest} µs`;
  return [
    '## queue_info throughput, Redis store ÷ memory store',
    '',
    `Two of our servers side by side, one on each store (Redis: a redis-server of its own on the same machine), each holding ${settings.visitors} waiting visitors ` +
      `(held by a GET with their own cookie, no WebSocket; lines paused). One closed-loop poller over ${settings.connections} keep-alive connections a server, ` +
      `${result.runs.length} runs of ${settings.saturateSeconds} s per store in ${settings.slices} alternating slices (memory, Redis, Redis, memory, …; the next run Redis first) after a 1 s warm-up on each, ` +
      `over ${settings.rounds ?? 1} rounds, each with processes of its own (servers, visitors, poller; Redis emptied).`,
    '',
    `- held: ${result.held.memory} (memory), ${result.held.redis} (Redis); errors: ${result.errors}`,
    `- Redis ÷ memory: **${fixed(median.ratio, 2)}** (per run: ${result.runs.map((run) => fixed(run.ratio, 2)).join(', ')})`,
    `- per run, CPU a request (server memory / server Redis + redis-server): ${result.runs
      .map(
        (run) =>
          `${fixed(run.memory.serverCpuMicrosPerRequest, 1)} / ${fixed(run.redis.serverCpuMicrosPerRequest, 1)} + ${fixed(run.redis.storeCpuMicrosPerRequest ?? Number.NaN, 1)} µs`,
      )
      .join(', ')}`,
    `- memory store: ${store(median.memory)}`,
    `- Redis store: ${store(median.redis)}; redis-server ${median.redis.storeCpuMicrosPerRequest} µs a request (${fixed(median.redis.storeCpu * 100)}% of a core over the run); ` +
      `${fixed(median.redis.pollsPerScriptCall ?? Number.NaN, 1)} polls a script call to Redis (each instance's copy of the line answers; the calls are mostly the marks of seen, written together)`,
  ];
}

function estimate(result: EstimateResult, variants: readonly { label: string; result: EstimateResult }[]): string[] {
  const { settings, median } = result;
  const row = (label: string, figures: EstimateResult['median']) =>
    `| ${label} | ${figures.steadyMaeMinutes} | ${figures.afterChangeMaeMinutes} | ${figures.minutesUntilWithin2} | ${figures.minutesUntilWithin1} | ${figures.newRateSteadyMaeMinutes} | ${figures.meanLine} |`;
  return [
    '## Wait estimate accuracy',
    '',
    `The real \`estimateMinutes\` over the real memory store's release times, on a simulated clock: ${settings.initialLine} waiting at the start, ` +
      `arrivals at random at the release rate, ${settings.rateBefore}/min until minute ${settings.changeAtMinutes}, then ${settings.rateAfter}/min ` +
      `(the configured rate handed to the estimate follows, as queue_info passes the policy in force); ` +
      `every waiting visitor's estimate sampled every ${settings.sampleEveryMs / 1000} s and compared with the wait that followed. Median of ${result.runs} seeded runs. ` +
      'The first row is the one the targets are judged on.',
    '',
    '| line | error, steady (min) | error, 2 min after the change (min) | back within 2 min of error after (min) | back within 1 min after (min) | error at the new rate (min) | mean line |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    row(`${settings.rateBefore} → ${settings.rateAfter}/min`, median),
    ...variants.map((variant) => row(variant.label, variant.result.median)),
    '',
    `Error minute by minute (first seed of the first row): ${result.timeline.map((point) => point.maeMinutes).join(' ')}`,
  ];
}

/** The goal of an opening: the whole pre-queue drawn and positioned within it. */
export const OPENING_GOAL_MS = 2000;

function drop(result: DropResult): string[] {
  return [
    '## Drop day: an event opening',
    '',
    `An event opens with ${result.entrants} visitors in its pre-queue, through the server's own \`EventSchedule\` on a clock the bench moves: ` +
      'the one step that freezes the entrants, computes the draw (SHA-256 and HMAC-SHA256 of each), applies it to the line and announces it, ' +
      `timed until every entrant has the position the draw gives (goal ≤ ${OPENING_GOAL_MS} ms; 1,000 entrants' positions then checked against the draw recomputed apart). ` +
      "Memory per pre-queued visitor: the JS heap after a full GC (memory store) or Redis's `used_memory` (Redis store). " +
      "The public draw is built once per instance; `verifyDraw` is the contract's check on Web Crypto, as the verify page and `npx waiting-room verify-draw` run it.",
    '',
    '| store | entrants | opening (draw computed) | goal | misplaced | bytes a pre-queued visitor | holds a second | `QueueOpened` spread | public draw: built, size (gzip) | verifyDraw |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...result.rows.map(
      (row) =>
        `| ${row.store} | ${row.entrants} | ${fixed(row.openingMs)} ms (${fixed(row.drawMs)} ms) | **${row.openingMs <= OPENING_GOAL_MS && row.misplaced === 0 ? 'PASS' : 'MISS'}** | ${row.misplaced} | ${row.bytesPerEntrant} B | ${row.holdsPerSecond} | ${row.spreadMs ?? '–'} ms | ` +
        `${fixed(row.recordMs)} ms, ${kb(row.recordBytes)} (${kb(row.recordGzipBytes)}) | ${fixed(row.verifyMs)} ms |`,
    ),
  ];
}

function million(result: MillionResult): string[] {
  const ms = (value: number | null) => (value === null ? '–' : `${fixed(value, 1)} ms`);
  return [
    '## A million in one room',
    '',
    `One room's line on one Redis, filled to ${result.places} places by the store's own \`hold\` (${result.holdsPerSecond} a second, ${result.fillSeconds} s), ` +
      "then a gateway joining while arrivals, releases and polls flow (a gateway's own calls, 1 s timeout; the polls are of places spread over the line, by the joining gateway, " +
      'whose answers must never grow; each release must release a place once): its copy loaded in pages, ' +
      "beside the whole line read in one script as the copy did before. The longest call is SLOWLOG's; the heap is the gateway's after a full GC; " +
      `2,000 of the copy's answers are then checked against Redis's. Redis: ${result.redisBytesPerPlace} B a place; ` +
      `\`stats\` and \`recentReleases\` (the store's part of \`/admin/stats\` and of the console's sample) at ${result.places}: median ${ms(result.statsMs.median)}, longest ${ms(result.statsMs.max)} of 50.`,
    '',
    '| places | load | time | longest Redis call | calls over 50 ms | traffic refused | positions grown | released twice | gateway heap a place | wrong answers |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...result.loads.map(
      (row) =>
        `| ${row.places} | ${row.way} | ${row.error ? `failed: ${row.error}` : ms(row.loadMs)} | ${ms(row.longestCallMs)} (${row.longestCall}) | ${row.slowCalls}${row.slowest.length > 0 ? ` (${row.slowest.join(', ')})` : ''} | ` +
        `${row.refused} of ${row.trafficCalls} | ${row.grew} | ${row.releasedTwice} | ${row.gatewayBytesPerPlace === null ? '–' : `${row.gatewayBytesPerPlace} B`} | ${row.wrong ?? '–'} |`,
    ),
  ];
}

function gatewayOverhead(result: GatewayOverheadResult): string[] {
  const { settings, latency, throughput, streaming, upload, errors } = result;
  const ms = (value: number) => `${fixed(value, 2)} ms`;
  const signed = (value: number) => `${value >= 0 ? '+' : '−'}${fixed(Math.abs(value), 2)} ms`;
  const mib = (bytes: number) => `${fixed(bytes / 2 ** 20, 1)} MiB`;
  const rate = (download: DownloadFigures) => `${fixed(download.mibPerSecond)} MiB/s`;
  const rss = (download: DownloadFigures) => {
    const figures = download.gatewayRss;
    return figures
      ? `${mib(figures.start)} → max ${mib(figures.max)} (+${mib(figures.growth)}; highest in the first half ${mib(figures.maxFirstHalf)}, in the second ${mib(figures.maxSecondHalf)}; ${figures.samples} samples)`
      : '–';
  };
  const buffers = (download: DownloadFigures) =>
    download.gatewayRss ? `${mib(download.gatewayRss.startArrayBuffers)} → max ${mib(download.gatewayRss.maxArrayBuffers)}` : '–';
  const heap = (download: DownloadFigures) =>
    download.gatewayRss ? `${mib(download.gatewayRss.startHeapUsed)} → max ${mib(download.gatewayRss.maxHeapUsed)}` : '–';
  const held = (download: DownloadFigures) =>
    `${mib(download.inFlightAtStallEndBytes ?? Number.NaN)}` +
    (download.inKernelAtStallEndBytes === undefined || download.inFlightAtStallEndBytes === undefined
      ? ''
      : ` (kernel socket queues ${mib(download.inKernelAtStallEndBytes)}, processes ${mib(download.inFlightAtStallEndBytes - download.inKernelAtStallEndBytes)})`);
  const received = (download: DownloadFigures) =>
    download.receivedBytes === download.expectedBytes ? 'all bytes' : `${download.receivedBytes} of ${download.expectedBytes} bytes`;
  const { constant, working } = throughput;
  const perSecond = (figures: ThroughputFigures) =>
    `| ${figures.path === '/' ? 'throughput, origin answering constant bytes (worst case), every process on every core' : `throughput, origin working ${fixed(figures.direct.cpuMicrosPerRequest.origin)} µs of CPU a request (judged)${figures.pinned ? `, origin and gateway on CPU ${figures.pinned.servers}, load generator on CPU ${figures.pinned.loadGenerator}` : ', not pinned'}`} | ` +
    `${fixed(figures.direct.perSecond)}/s | ${fixed(figures.proxied.perSecond)}/s | ×${fixed(figures.ratio, 2)} |`;
  const underLoad = (figures: ThroughputFigures) =>
    `| latency under that load, p50 / p99 | ${ms(figures.direct.latencyMs.p50)} / ${ms(figures.direct.latencyMs.p99)} | ${ms(figures.proxied.latencyMs.p50)} / ${ms(figures.proxied.latencyMs.p99)} | |`;
  const cpuLine = (figures: ThroughputFigures) => {
    const { direct, proxied } = figures;
    return (
      `through the gateway, gateway ${fixed(proxied.cpuMicrosPerRequest.gateway ?? Number.NaN, 1)} µs + origin ${fixed(proxied.cpuMicrosPerRequest.origin, 1)} µs + load generator ${fixed(proxied.cpuMicrosPerRequest.client, 1)} µs; ` +
      `direct, origin ${fixed(direct.cpuMicrosPerRequest.origin, 1)} µs + load generator ${fixed(direct.cpuMicrosPerRequest.client, 1)} µs ` +
      `(origin ÷ (origin + gateway): ${fixed(figures.sharedCoreRatio, 2)}). Per slice: direct ${direct.slicesPerSecond.join(', ')}/s; proxied ${proxied.slicesPerSecond.join(', ')}/s`
    );
  };
  const kinds = Object.entries(errors.kinds).map(([kind, { count }]) => `${kind} ×${count}`);
  return [
    '## Gateway overhead',
    '',
    `The real server (\`start(loadConfig(env))\`, UPSTREAM set, PROTECT=/checkout so that \`/\` and \`/page\` go straight through the gate to the proxy, memory store, the default log level) ` +
      `in front of a plain Node http origin (keep-alive; \`GET /\` answers ${settings.bodyBytes} bytes at once, \`GET /page\` the same after about ${settings.originWorkMicros} µs of CPU work, ` +
      `\`/download\` generates ${settings.chunkBytes / 1024} KiB chunks), each in its own process; ` +
      `the load generator asks the origin directly and through the gateway in ${settings.slices} alternating slices of ${fixed(settings.sliceSeconds, 1)} s (direct, proxied, proxied, direct, …) ` +
      `after a ${settings.warmupSeconds} s warm-up on each.`,
    '',
    '| measure | direct | through the gateway | gateway vs direct |',
    '| --- | --- | --- | --- |',
    `| latency p50, one keep-alive connection, sequential GET / | ${ms(latency.direct.p50)} | ${ms(latency.proxied.p50)} | ${signed(latency.addedP50Ms)} |`,
    `| latency p99, same | ${ms(latency.direct.p99)} | ${ms(latency.proxied.p99)} | ${signed(latency.addedP99Ms)} |`,
    perSecond(constant),
    underLoad(constant),
    perSecond(working),
    underLoad(working),
    `| ${settings.downloadMib} MiB download read as a stream | ${rate(streaming.direct)} (${fixed(streaming.direct.seconds, 2)} s, ${received(streaming.direct)}) | ${rate(streaming.proxied)} (${fixed(streaming.proxied.seconds, 2)} s, ${received(streaming.proxied)}) | ×${fixed(streaming.ratio, 2)} |`,
    `| gateway RSS during that download | – | ${rss(streaming.proxied)} | |`,
    `| ${settings.longDownloadMib} MiB download through the gateway, read straight through | – | ${rate(streaming.proxiedLong)} (${fixed(streaming.proxiedLong.seconds, 2)} s, ${received(streaming.proxiedLong)}) | |`,
    `| gateway RSS during that download | – | ${rss(streaming.proxiedLong)}; its highest ${mib((streaming.proxiedLong.gatewayRss?.max ?? Number.NaN) - (streaming.proxied.gatewayRss?.start ?? Number.NaN))} above the RSS before the ${settings.downloadMib} MiB, against ${mib((streaming.proxied.gatewayRss?.max ?? Number.NaN) - (streaming.proxied.gatewayRss?.start ?? Number.NaN))} for it | |`,
    `| the same with the reader stalled ${settings.stallMs / 1000} s after ${settings.stallAfterMib} MiB | – | ${rss(streaming.proxiedStalled)}, ${received(streaming.proxiedStalled)} | |`,
    `| bytes the origin had written ahead of the stalled reader when it resumed (direct: one pair of sockets' buffers; proxied: two pairs and the gateway) | ` +
      `${held(streaming.directStalled)} | ${held(streaming.proxiedStalled)} | |`,
    `| ${settings.uploadMib} MiB upload streamed to POST /echo, bytes the origin counted | ${upload.direct.counted} (${fixed(upload.direct.seconds, 2)} s) | ${upload.proxied.counted} (${fixed(upload.proxied.seconds, 2)} s) | |`,
    '',
    `- Throughput: ${settings.connections} keep-alive connections, median of ${constant.direct.slicesPerSecond.length} slices per target; browser-like GET requests (cookies included).`,
    `- CPU per request, constant origin: ${cpuLine(constant)}.`,
    `- CPU per request, working origin (${settings.originWorkRounds} rounds of SHA-256 a page): ${cpuLine(working)}. ` +
      `An origin and a gateway sharing a core keep ${fixed(TARGETS.gatewayThroughputRatio, 1)} of the origin's throughput when the origin spends more than ${throughput.breakEvenOriginMicros} µs a request.`,
    `- The gateway's own account during the downloads (process.memoryUsage, every 25 ms): Buffers (arrayBuffers) ${buffers(streaming.proxied)} read straight through, ` +
      `${buffers(streaming.proxiedLong)} during the ${settings.longDownloadMib} MiB, ${buffers(streaming.proxiedStalled)} with the reader stalled; ` +
      `JS heap used ${heap(streaming.proxied)}, ${heap(streaming.proxiedLong)} and ${heap(streaming.proxiedStalled)}.`,
    `- Errors: ${errors.total === 0 ? 'none' : kinds.join('; ')}.`,
  ];
}

function admission(result: AdmissionResult): string[] {
  const { settings, capacity, rooms } = result;
  const { origin } = settings;
  const percent = (share: number) => `${fixed(share * 100, share < 0.1 && share > 0 ? 2 : 1)} %`;
  const rate = (room: RoomResult) =>
    room.env.ADMISSION === 'adaptive'
      ? `adaptive, ceilings ${room.env.RELEASE_PER_MINUTE}/min and ${room.env.ACTIVE_LIMIT}`
      : `${room.env.RELEASE_PER_MINUTE}/min, ${room.env.ACTIVE_LIMIT} at once`;
  const window = (room: RoomResult, which: 'steady' | 'halved' | 'after') => {
    const figures = room[which];
    return (
      `${fixed(figures.goodput, 2)} | ${fixed(figures.origin.latencyMs.p50)} / ${fixed(figures.origin.latencyMs.p99)} ms | ` +
      `${percent(figures.visitors.errorShare)} (${figures.visitors.errors}), ${figures.visitors.heldAgain} held again | ${fixed(figures.visitors.waitSeconds.p50, 1)} s`
    );
  };
  const adaptive = rooms.find((room) => room.env.ADMISSION === 'adaptive');
  const every = <T extends { t: number }>(points: readonly T[], seconds: number) =>
    points.filter((point, i) => i === 0 || Math.floor(point.t / seconds) !== Math.floor(points[i - 1].t / seconds));
  return [
    '## Adaptive admission against fixed settings',
    '',
    `Each room is the real server in a process of its own, in front of an origin of its own: ${origin.workers} workers, each request holding one for ` +
      `${origin.serviceMs} ms ± ${fixed(origin.jitter * 100)} % (a timer), a first-come queue in front: **${capacity.requestsPerSecond} requests/s**, ` +
      `${capacity.visitsPerMinute} visits a minute. Visitors arrive at ${settings.arrivalsFactor}× that while fewer than ${settings.lineCap} wait, ` +
      `as API clients, listen for their release over the Pusher protocol, replay ${settings.reactionMs[0]}–${settings.reactionMs[1]} ms after it, then make ` +
      `${settings.perVisit} protected requests ${settings.thinkMs[0]}–${settings.thinkMs[1]} ms apart. SESSION_SECONDS=${settings.sessionSeconds}, ` +
      `ADMISSION_FEEDBACK_SECONDS=${settings.feedbackSeconds}, ORIGIN_LATENCY_TARGET_MS=${settings.targetMs}, UPSTREAM_TIMEOUT_MS=${settings.upstreamTimeoutMs}. ` +
      `All rooms run at once: ${settings.warmupSeconds} s of warm-up, ${settings.steadySeconds} s measured, then every origin loses half its workers and the rooms are ` +
      `watched for ${settings.halvedSeconds} s. The origins' timers gave ${result.measuredServiceMs.join(', ')} ms a request on average; load average at the end ${result.loadAverage.join(' ')}.`,
    '',
    `Steady (goodput: the origin's answers a second ÷ its ${capacity.requestsPerSecond} requests/s; latency: at the origin, arrival to answer):`,
    '',
    '| room | rate and limit | goodput | origin p50 / p99 | visitors: errors, visits held again | wait p50 | origin healthy |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rooms.map((room) => `| ${room.name} | ${rate(room)} | ${window(room, 'steady')} | ${healthy(room.steady, settings.targetMs) ? 'yes' : '**no**'} |`),
    '',
    `The origins lose half their workers (${capacity.halvedRequestsPerSecond} requests/s): the first ${settings.resettleSeconds} s, then the rest of the run ` +
      `(goodput ÷ the halved capacity; re-settled: from then to the end, the origin's p99 within the target and its goodput at least 90 %):`,
    '',
    '| room | goodput | origin p50 / p99 | visitors: errors, visits held again | wait p50 | after: goodput, p99 | re-settled after |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rooms.map(
      (room) =>
        `| ${room.name} | ${window(room, 'halved')} | ${fixed(room.after.goodput, 2)}, ${fixed(room.after.origin.latencyMs.p99)} ms | ${room.resettleSeconds === null ? 'not within the run' : `${room.resettleSeconds} s`} |`,
    ),
    ...(adaptive
      ? [
          '',
          `The adaptive room every 10 s (s from the start: releases a minute, limit, the p99 it measured, its last decision): ` +
            every(adaptive.timeline, 10)
              .map((point) =>
                `${fixed(point.t)} s ${fixed(point.releasePerMinute)}/${point.activeLimit} ${point.measuredP99Ms ?? '–'} ms ${point.decision ?? ''}`.trim(),
              )
              .join('; '),
          '',
          `Its event loop's delay p99, every 2 s: ${adaptive.timeline.map((point) => point.loopDelayP99Ms).join(' ')} ms.`,
        ]
      : []),
  ];
}

function botCheck(result: BotCheckResult): string[] {
  const { settings, browser, bot, server } = result;
  const ms = (d: { p50: number; p90: number; max: number }) => `p50 ${d.p50} ms, p90 ${d.p90} ms, max ${d.max} ms`;
  return [
    '## Bot check',
    '',
    `ALTCHA v2 challenges, ${settings.kdf.algorithm} N=${settings.kdf.cost} r=${settings.kdf.memoryCost} p=${settings.kdf.parallelism} (1 MiB a try), difficulty ${settings.difficulty} ` +
      `(the counter drawn from ${Math.ceil(settings.difficulty / 2)}–${settings.difficulty}); each solve of a fresh challenge from the real server, interleaved.`,
    '',
    `- Chromium, the page's solver in ${browser.concurrency} Web Workers, no throttling: ${ms(browser.workers)} (${settings.browserSolves} solves)`,
    `- Chromium, one worker's code on the page's thread: ${ms(browser.mainThread)}; with the CPU ${CPU_SLOWDOWN}× slower (Emulation.setCPUThrottlingRate, which reaches no worker): **${ms(browser.throttled)}** (×${browser.throttleRatio}); ${browser.msPerTry} ms a try unthrottled`,
    `- a bot with Node's native scrypt (OpenSSL): **${bot.cpuMsPerPlace} ms of CPU a place**, ${bot.cpuSecondsPer1000Places} CPU-seconds per 1,000 places (${bot.triesPerPlace} tries a place, ${bot.msPerTry} ms a try; ${settings.botSolves} solves)`,
    `- the server: ${server.issueCpuMicros} µs of CPU to issue a challenge (one key derivation, cached for a reload), **${server.verifyCpuMicros} µs to check a solution** (HMACs only; ${settings.verifications} checks)`,
  ];
}
