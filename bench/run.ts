/**
 * `npm run bench`: page weight, page load on a slow phone, server capacity, wait-estimate accuracy, the cost of a
 * position as the line grows and the gateway's overhead in front of an origin, each measured as a
 * ratio or a distribution inside one run, so that the figures hold on a noisy shared machine.
 * Writes bench/results/latest.json and latest.md, and a copy of the results named by the run's
 * time (`run-<time>.json`, which git ignores: the repository keeps only latest.json and
 * baseline.json), and prints the summary with PASS/MISS per target.
 *
 * Environment:
 *   BENCH_VISITORS=10000      waiting visitors held at once
 *   BENCH_VISITOR_PROCESSES=4 processes the visitors are spread over, each reading its share of the sockets
 *   BENCH_TIME_FACTOR=2       the page's 5 s and 60 s polls run this many times faster
 *   BENCH_POLL_SECONDS=20     paced polling (with releases) duration of each paced run
 *   BENCH_PACED_REPETITIONS=3 paced runs, median reported
 *   BENCH_RELEASE_PER_MINUTE=1200
 *   BENCH_REPETITIONS=5       closed-loop throughput runs (ours and bare each), median reported
 *   BENCH_SATURATE_SECONDS=4  closed-loop seconds per server in each run (in 4 slices, alternating with the other server)
 *   BENCH_CONNECTIONS=64      keep-alive connections of the closed loop
 *   BENCH_ONLY=page,pageload,estimate,capacity,gateway,admission,opening,drop,bot-check,connector,rehearsal   run only these parts; add ramp for the capacity ramp, opening-million for an opening of a million on Redis;
 *                             stores: queue_info on the Redis store beside the memory store alone (also part of capacity with BENCH_REDIS=1)
 *   BENCH_PAGE_LOAD_RUNS=5    page loads in Chromium (Fast 3G, CPU 4× slower), each cold then reloaded; median reported
 *   BENCH_DROP_ENTRANTS=100000  drop: the pre-queue an event opens with, on the memory store and on Redis
 *   BENCH_MILLION_PLACES=1000000  million (only when BENCH_ONLY names it): one room's line on one Redis, a gateway's copy
 *                             of it loaded in pages, at 100,000, 300,000 and this size
 *   BENCH_ARRIVALS=10000      arrivals (only when BENCH_ONLY names it): held arrivals through the gateway on one Redis, the CPU,
 *                             Redis calls and memory of each, then their releases (bench/results/arrivals.json)
 *   BENCH_OPENING_ENTRANTS=1000000  opening-million (not run by default): the pre-queue an event opens with on one Redis
 *   BENCH_BOT_SOLVES=15       bot check: solves of each kind in Chromium (the bot's native solves: 40)
 *   BENCH_RAMP_STORES=memory,redis BENCH_RAMP_STEP=2500 BENCH_RAMP_MAX=40000 BENCH_RAMP_SECONDS=10 BENCH_RAMP_RELEASE_PER_MINUTE=600
 *                             the capacity ramp (BENCH_ONLY=ramp): visitors added a step at a time until the first error or a release p99 over 1 s
 *   BENCH_GATEWAY_SECONDS=4   gateway overhead: counted seconds per target (direct, proxied) in the latency and throughput phases
 *   BENCH_GATEWAY_CONNECTIONS=64  keep-alive connections of the gateway's throughput loop
 *   BENCH_GATEWAY_DOWNLOAD_MB=100 MiB of the streamed download, direct and through the gateway (1 GiB once more for its memory, or ten times as much if more)
 *   BENCH_GATEWAY_ORIGIN_WORK_US=1000 CPU µs the working origin spends on each page (the judged throughput)
 *   BENCH_REDIS=1             also run the capacity benchmark on Redis (a redis-server on a free port), and
 *                             queue_info's throughput on a Redis-store server beside a memory-store one, in alternating slices
 *   BENCH_ADMISSION_WARMUP_SECONDS=150 BENCH_ADMISSION_STEADY_SECONDS=40 BENCH_ADMISSION_HALVED_SECONDS=80
 *                             adaptive admission against fixed settings: the phases (the halved one at least 60 s)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { runRamp, type RampResult } from './capacity/ramp';
import { runCapacity, type CapacityOptions, type CapacityResult } from './capacity/run-capacity';
import { compareStores, type StoreComparisonResult } from './capacity/stores';
import { DEFAULT_ADMISSION_OPTIONS, RESETTLE_SECONDS, measureAdmission, type AdmissionResult } from './admission/run-admission';
import { OPENING_FILE, measureOpening, openingChecks, type OpeningResult } from './admission/opening';
import { ADAPTIVE_ESTIMATE, DEFAULT_ESTIMATE_OPTIONS, ESTIMATE_VARIANTS, measureEstimateAccuracy, type EstimateResult } from './estimate-accuracy';
import { measureDrop, type DropResult } from './drop';
import { measureEstimateByRehearsal, measureRehearsal, REALITY_CROWD, REALITY_ENV, type RehearsalBenchResult } from './rehearsal';
import { measureMillion, type MillionResult } from './million';
import { ARRIVALS_FILE, measureArrivals, type ArrivalsResult } from './arrivals';
import { measureOpeningMillion, type OpeningMillionResult } from './opening-million';
import { DEFAULT_BOT_CHECK_OPTIONS, measureBotCheck, type BotCheckResult } from './bot-check';
import { measureGatewayOverhead, type GatewayOverheadResult } from './gateway-overhead';
import { LOCALES } from '../locales';
import {
  checkPageBudget,
  languageLoadChecks,
  measureLanguages,
  measurePageLoad,
  OWN_PAGE_ROOMS,
  pageLoadChecks,
  type LanguageLoad,
  type PageLoadResult,
} from './page-load';
import { measurePageWeight, type PageWeightResult } from './page-weight';
import { renderMarkdown } from './report';
import { connectorPassChecks, measureConnectorPass, type ConnectorPassResult } from './connector-pass';
import { compareRuns, readBaseline } from './compare';
import { checkRampTargets, checkRedisTargets, checkTargets } from './targets';

const resultsDir = path.join(__dirname, 'results');
const DEFAULT_PARTS = 'page,pageload,estimate,capacity,gateway,admission,opening,drop,bot-check,connector,rehearsal';
const KNOWN_PARTS = [
  'page',
  'pageload',
  'estimate',
  'capacity',
  'stores',
  'gateway',
  'admission',
  'opening',
  'drop',
  'opening-million',
  'bot-check',
  'connector',
  'ramp',
  'million',
  'arrivals',
  'rehearsal',
];

function numberFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number ≥ ${min}; got "${raw}".`);
  return value;
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadAtStart = os.loadavg().map((load) => Math.round(load * 100) / 100);
  const only = new Set(
    (process.env.BENCH_ONLY || DEFAULT_PARTS)
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  );
  const unknown = [...only].filter((part) => !KNOWN_PARTS.includes(part));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown part ${unknown.join(', ')}; known: ${KNOWN_PARTS.join(', ')}.`);
  const log = (line: string) => console.log(line);
  const workDir = mkdtempSync(path.join(tmpdir(), 'waiting-room-bench-'));
  try {
    const pageDir = path.join(workDir, 'page');
    /** How long each part took (s): bench/README.md quotes them. */
    const partSeconds: Record<string, number> = {};
    let partStarted = Date.now();
    const partDone = (part: string) => {
      partSeconds[part] = Math.round((Date.now() - partStarted) / 100) / 10;
      partStarted = Date.now();
    };
    log('page weight: building the page and a naive bundle…');
    // The capacity benchmark serves this build, so the page is always built.
    const pageWeight: PageWeightResult = await measurePageWeight(pageDir);
    partDone('page');

    let pageLoad: PageLoadResult | undefined;
    let ownPageLoad: PageLoadResult | undefined;
    let languageLoads: LanguageLoad[] | undefined;
    if (only.has('pageload')) {
      const runs = Math.floor(numberFromEnv('BENCH_PAGE_LOAD_RUNS', 5, 1));
      log(`page load: ${runs} visitors on Fast 3G with the CPU 4× slower, in Chromium, against the real server…`);
      pageLoad = await measurePageLoad({ pageDir, runs, log });
      // The same budgets hold for a room's own page (the documented example).
      log(`page load, a room's own page: ${runs} visitors more, the same way…`);
      ownPageLoad = await measurePageLoad({ pageDir, runs, log, env: { ROOMS_FILE: OWN_PAGE_ROOMS } });
      log(`page load in every language: one visitor per language (${LOCALES.length}), the same way…`);
      languageLoads = await measureLanguages({ pageDir, locales: LOCALES, log });
    }

    let estimate: EstimateResult | undefined;
    const estimateVariants: { label: string; result: EstimateResult }[] = [];
    if (only.has('estimate')) {
      log('wait estimate: simulating a line whose release rate halves…');
      estimate = await measureEstimateAccuracy(DEFAULT_ESTIMATE_OPTIONS);
      for (const { label, options } of ESTIMATE_VARIANTS) estimateVariants.push({ label, result: await measureEstimateAccuracy(options) });
    }

    if (only.has('estimate')) partDone('estimate');
    let capacity: CapacityResult | undefined;
    let capacityRedis: CapacityResult | undefined;
    let storeComparison: StoreComparisonResult | undefined;
    const options: CapacityOptions = {
      visitors: Math.floor(numberFromEnv('BENCH_VISITORS', 10_000, 10)),
      visitorProcesses: Math.floor(numberFromEnv('BENCH_VISITOR_PROCESSES', 4, 1)),
      factor: numberFromEnv('BENCH_TIME_FACTOR', 2, 0.1),
      pollSeconds: numberFromEnv('BENCH_POLL_SECONDS', 20, 1),
      pacedRepetitions: Math.floor(numberFromEnv('BENCH_PACED_REPETITIONS', 3, 1)),
      saturateSeconds: numberFromEnv('BENCH_SATURATE_SECONDS', 4, 1),
      repetitions: Math.floor(numberFromEnv('BENCH_REPETITIONS', 5, 1)),
      connections: Math.floor(numberFromEnv('BENCH_CONNECTIONS', 64, 1)),
      pollSockets: 256,
      releasePerMinute: Math.floor(numberFromEnv('BENCH_RELEASE_PER_MINUTE', 1200, 60)),
      // Room for ten seconds of releases, so the rate is the limit, not the active sessions.
      activeLimit: Math.ceil(numberFromEnv('BENCH_RELEASE_PER_MINUTE', 1200, 60) / 6),
      sessionSeconds: 5,
      pageDir,
      log,
    };
    if (only.has('capacity')) {
      log(`server capacity (memory store): ${options.visitors} visitors…`);
      capacity = await runCapacity(options);
      partDone('capacity');
      if (process.env.BENCH_REDIS === '1') {
        log(`server capacity (Redis store): ${options.visitors} visitors…`);
        capacityRedis = await withRedis((redisUrl, probes) => runCapacity({ ...options, ...probes, redisUrl }));
        partDone('capacityRedis');
      }
    }
    if (only.has('stores') || (only.has('capacity') && process.env.BENCH_REDIS === '1')) {
      log(`queue_info throughput, Redis store beside the memory store: ${options.visitors} visitors held on each…`);
      storeComparison = await withRedis((redisUrl, probes) => compareStores({ ...options, ...probes, redisUrl }));
      partDone('stores');
    }

    let admission: AdmissionResult | undefined;
    if (only.has('admission')) {
      log('adaptive admission: rooms in front of origins of known capacity, side by side, then the origins halve…');
      admission = await measureAdmission({
        ...DEFAULT_ADMISSION_OPTIONS,
        warmupSeconds: numberFromEnv('BENCH_ADMISSION_WARMUP_SECONDS', DEFAULT_ADMISSION_OPTIONS.warmupSeconds, 10),
        steadySeconds: numberFromEnv('BENCH_ADMISSION_STEADY_SECONDS', DEFAULT_ADMISSION_OPTIONS.steadySeconds, 10),
        halvedSeconds: numberFromEnv('BENCH_ADMISSION_HALVED_SECONDS', DEFAULT_ADMISSION_OPTIONS.halvedSeconds, RESETTLE_SECONDS + 10),
        pageDir,
        log,
      });
    }
    if (only.has('admission')) partDone('admission');

    let opening: OpeningResult | undefined;
    if (only.has('opening')) {
      log('opening bursts: adaptive admission on a virtual clock, crowds in the first seconds…');
      opening = await measureOpening();
      partDone('opening');
    }

    let gateway: GatewayOverheadResult | undefined;
    if (only.has('gateway')) {
      const gatewayOptions = {
        seconds: numberFromEnv('BENCH_GATEWAY_SECONDS', 4, 1),
        connections: Math.floor(numberFromEnv('BENCH_GATEWAY_CONNECTIONS', 64, 1)),
        downloadMib: Math.floor(numberFromEnv('BENCH_GATEWAY_DOWNLOAD_MB', 100, 1)),
        originWorkMicros: numberFromEnv('BENCH_GATEWAY_ORIGIN_WORK_US', 1000, 1),
        pageDir,
        log,
      };
      log(`gateway overhead: a Node http origin, directly and through the gateway…`);
      gateway = await measureGatewayOverhead(gatewayOptions);
    }

    if (only.has('gateway')) partDone('gateway');

    let drop: DropResult | undefined;
    if (only.has('drop')) {
      const entrants = Math.floor(numberFromEnv('BENCH_DROP_ENTRANTS', 100_000, 10));
      log(`drop: an event opening with ${entrants} in its pre-queue, on the memory store and on Redis…`);
      drop = await withRedis((redisUrl) => measureDrop({ entrants, redisUrl, log }));
    }
    if (only.has('drop')) partDone('drop');

    let million: MillionResult | undefined;
    if (only.has('million')) {
      const places = Math.floor(numberFromEnv('BENCH_MILLION_PLACES', 1_000_000, 1000));
      log(`million: ${places} places in one room on one Redis, and a gateway's copy of the line…`);
      million = await withRedis((redisUrl) => measureMillion({ places, checkpoints: [100_000, 300_000], redisUrl, log }));
      partDone('million');
    }

    let arrivals: ArrivalsResult | undefined;
    if (only.has('arrivals')) {
      const count = Math.floor(numberFromEnv('BENCH_ARRIVALS', 10_000, 100));
      log(`arrivals: ${count} held arrivals through the gateway on Redis, the CPU and memory of each…`);
      arrivals = await withRedis((redisUrl) => measureArrivals({ arrivals: count, warmup: 2000, concurrency: 32, redisUrl, pageDir, log }));
      partDone('arrivals');
    }

    let openingMillion: OpeningMillionResult | undefined;
    if (only.has('opening-million')) {
      const entrants = Math.floor(numberFromEnv('BENCH_OPENING_ENTRANTS', 1_000_000, 10));
      log(`opening-million: an event opening with ${entrants} pre-queued, on one Redis…`);
      openingMillion = await withRedis((redisUrl) => measureOpeningMillion({ entrants, redisUrl, log }));
      log(`opening-million: ${JSON.stringify(openingMillion)}`);
      partDone('opening-million');
    }

    const ramps: RampResult[] = [];
    if (only.has('ramp')) {
      const stores = (process.env.BENCH_RAMP_STORES || 'memory,redis').split(',').map((store) => store.trim());
      for (const store of stores) {
        if (store !== 'memory' && store !== 'redis') throw new Error(`BENCH_RAMP_STORES: unknown store ${store}; known: memory, redis.`);
        const rampOptions = {
          store,
          step: Math.floor(numberFromEnv('BENCH_RAMP_STEP', 2500, 100)),
          maxVisitors: Math.floor(numberFromEnv('BENCH_RAMP_MAX', 40_000, 100)),
          measureSeconds: numberFromEnv('BENCH_RAMP_SECONDS', 10, 2),
          releasePerMinute: Math.floor(numberFromEnv('BENCH_RAMP_RELEASE_PER_MINUTE', 600, 60)),
          releaseP99LimitMs: 1000,
          pageDir,
          log,
        } as const;
        log(`capacity ramp (${store} store): visitors added until the first error or a release p99 over 1 s…`);
        ramps.push(store === 'redis' ? await withRedis((redisUrl) => runRamp({ ...rampOptions, redisUrl })) : await runRamp(rampOptions));
      }
    }

    if (only.has('ramp')) partDone('ramp');

    let rehearsal: { againstReality: RehearsalBenchResult; estimate: Awaited<ReturnType<typeof measureEstimateByRehearsal>> } | undefined;
    if (only.has('rehearsal')) {
      log('rehearsal: one crowd through `waiting-room rehearse` and through the real server…');
      const against = await measureRehearsal({ crowd: REALITY_CROWD, env: REALITY_ENV, pageDir, log });
      log(`rehearsal against reality: ${JSON.stringify(against)}`);
      log('rehearsal: the estimate at a steady rate, a rate that halves and an opening burst…');
      const estimate = await measureEstimateByRehearsal();
      log(`rehearsal, the estimate: ${JSON.stringify(estimate)}`);
      rehearsal = { againstReality: against, estimate };
      partDone('rehearsal');
    }

    let botCheck: BotCheckResult | undefined;
    if (only.has('bot-check')) {
      botCheck = await measureBotCheck({
        ...DEFAULT_BOT_CHECK_OPTIONS,
        browserSolves: Math.floor(numberFromEnv('BENCH_BOT_SOLVES', DEFAULT_BOT_CHECK_OPTIONS.browserSolves, 3)),
        pageDir,
        log,
      });
    }

    let connectorPass: ConnectorPassResult | undefined;
    if (only.has('connector')) {
      connectorPass = await measureConnectorPass({ visitors: 2000, requestsEach: 50, log });
      partDone('connector');
    }

    const results = {
      date: new Date().toISOString(),
      machine: machine(loadAtStart),
      seconds: (Date.now() - started) / 1000,
      partSeconds,
      // The parts this run measured: latest.json and latest.md hold these only (the page is always built).
      parts: ['page', ...[...only].filter((part) => part !== 'page')],
      targets: [
        ...(pageLoad ? pageLoadChecks(pageLoad) : []),
        ...(ownPageLoad ? pageLoadChecks(ownPageLoad, "page, a room's own (docs/examples)") : []),
        ...(languageLoads ? languageLoadChecks(languageLoads) : []),
        ...checkTargets(
          capacity,
          estimate,
          gateway,
          admission,
          estimateVariants.find((variant) => variant.label === ADAPTIVE_ESTIMATE.label)?.result,
          botCheck,
        ),
        ...checkRampTargets(ramps),
        ...(opening ? openingChecks(opening) : []),
        ...(connectorPass ? connectorPassChecks(connectorPass) : []),
      ],
      targetsRedis:
        capacityRedis || storeComparison
          ? [...(capacityRedis ? checkTargets(capacityRedis, undefined) : []), ...checkRedisTargets(capacity, capacityRedis, storeComparison)]
          : undefined,
      pageWeight,
      pageLoad,
      ownPageLoad,
      estimate,
      estimateVariants,
      capacity,
      capacityRedis,
      storeComparison,
      gateway,
      admission,
      opening,
      drop,
      million,
      arrivals,
      openingMillion,
      ramps: ramps.length > 0 ? ramps : undefined,
      botCheck,
      connectorPass,
      rehearsal,
    };
    const baseline = readBaseline(resultsDir);
    const compared = {
      ...results,
      previousRun: baseline && { file: baseline.file, date: baseline.date },
      comparison: compareRuns(results, baseline?.results),
    };
    mkdirSync(resultsDir, { recursive: true });
    const markdown = renderMarkdown(compared);
    // One line: git keeps this file and the baseline, and indenting doubled their size.
    const json = JSON.stringify(compared) + '\n';
    const dated = `run-${results.date.replace(/[:.]/g, '-')}.json`;
    writeFileSync(path.join(resultsDir, 'latest.json'), json);
    writeFileSync(path.join(resultsDir, dated), json);
    writeFileSync(path.join(resultsDir, 'latest.md'), markdown);
    // The opening's figures are kept apart too: docs/performance.md shows them whatever the last run measured.
    if (opening) writeFileSync(path.join(resultsDir, OPENING_FILE), `${JSON.stringify({ date: results.date, opening }, null, 2)}\n`);
    // So are an arrival's costs, which docs/capacity.md is computed from.
    if (arrivals)
      writeFileSync(path.join(resultsDir, ARRIVALS_FILE), `${JSON.stringify({ date: results.date, machine: results.machine, arrivals }, null, 2)}\n`);
    console.log('\n' + markdown);
    console.log(`written: ${path.relative(process.cwd(), path.join(resultsDir, 'latest.json'))}, latest.md and ${dated}`);
    // The page's JavaScript budget, on what Chromium fetched before the position: past it, the bench fails.
    if (pageLoad) checkPageBudget(pageLoad);
    if (ownPageLoad) checkPageBudget(ownPageLoad);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

function machine(loadAverageAtStart: number[]) {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    loadAverageAtStart,
    loadAverageAtEnd: os.loadavg().map((load) => Math.round(load * 100) / 100),
  };
}

type StoreProbes = {
  storeMemory: () => Promise<number>;
  storeCpu: () => Promise<number>;
  flushStore: () => Promise<void>;
  storeScriptCalls: () => Promise<number>;
};

/** Runs `run` against a redis-server of its own on a free port, with probes of its memory and CPU time. */
async function withRedis<T>(run: (url: string, probes: StoreProbes) => Promise<T>): Promise<T> {
  const { startRedisServer } = await import('../spec/support/redis-server');
  const { default: Redis } = await import('ioredis');
  const redis = await startRedisServer();
  const probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const field = (info: string, name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? Number.NaN);
  const storeMemory = async () => field(await probe.info('memory'), 'used_memory');
  const storeCpu = async () => {
    const info = await probe.info('cpu');
    return field(info, 'used_cpu_user') + field(info, 'used_cpu_sys');
  };
  const flushStore = async () => void (await probe.flushall());
  const storeScriptCalls = async () => {
    const stats = await probe.info('commandstats');
    const calls = (command: string) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    return calls('evalsha') + calls('eval');
  };
  try {
    return await run(redis.url, { storeMemory, storeCpu, flushStore, storeScriptCalls });
  } finally {
    probe.disconnect();
    await redis.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
