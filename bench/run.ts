/**
 * `npm run bench`: every part named in `PARTS` (or those `BENCH_ONLY` names); bench/README.md says
 * what each measures, where the results go and every setting (`BENCH_*`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { runRamp, type RampResult } from './capacity/ramp';
import { runCapacity, type CapacityOptions, type CapacityResult } from './capacity/run-capacity';
import { compareStores } from './capacity/stores';
import { admissionChecks, DEFAULT_ADMISSION_OPTIONS, RESETTLE_SECONDS, measureAdmission } from './admission/run-admission';
import { OPENING_FILE, measureOpening, openingChecks } from './admission/opening';
import { measureDrop, measureOpeningMillion } from './drop';
import { measureMillion } from './million';
import { SPLIT_FILE, measureSplit } from './split';
import { ARRIVALS_FILE, measureArrivals } from './arrivals';
import { gatewayChecks, measureGatewayOverhead } from './gateway-overhead';
import { LOCALES } from '../locales';
import { checkPageBudget, languageLoadChecks, measureLanguages, measurePageLoad, OWN_PAGE_ROOMS, pageLoadChecks } from './page-load';
import { measurePageWeight } from './page-weight';
import { connectorPassChecks, measureConnectorPass } from './connector-pass';
import { compareRuns, figureChecks, readBaseline, renderMarkdown } from './compare';
import { redisCpuSeconds, round, usedMemory } from './stats';

const resultsDir = path.join(__dirname, 'results');
/** The parts run when `BENCH_ONLY` is unset; `PARTS` holds them all, in the order they run. */
const DEFAULT_PARTS = 'page,pageload,capacity,gateway,admission,opening,drop,connector';

function numberFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number ≥ ${min}; got "${raw}".`);
  return value;
}
const countFromEnv = (name: string, fallback: number, min: number) => Math.floor(numberFromEnv(name, fallback, min));

type Context = { readonly pageDir: string; readonly log: (line: string) => void; readonly capacity: CapacityOptions };

/** Each part, by its name in `BENCH_ONLY`, in the order they run. */
const PARTS = {
  // The other parts serve this build, so the page is always built, first.
  page: async ({ pageDir, log }) => {
    log('page weight: building the page…');
    return { pageWeight: await measurePageWeight(pageDir) };
  },
  pageload: async ({ pageDir, log }) => {
    const runs = countFromEnv('BENCH_PAGE_LOAD_RUNS', 5, 1);
    log(`page load: ${runs} visitors on Fast 3G with the CPU 4× slower, in Chromium, against the real server…`);
    const pageLoad = await measurePageLoad({ pageDir, runs, log });
    // The same budgets hold for a room's own page (the documented example).
    log(`page load, a room's own page: ${runs} visitors more, the same way…`);
    const ownPageLoad = await measurePageLoad({ pageDir, runs, log, env: { ROOMS_FILE: OWN_PAGE_ROOMS } });
    log(`page load in every language: one visitor per language (${LOCALES.length}), the same way…`);
    return { pageLoad, ownPageLoad, languageLoads: await measureLanguages({ pageDir, locales: LOCALES, log }) };
  },
  capacity: async ({ capacity: options, log }): Promise<{ capacity: CapacityResult; capacityRedis?: CapacityResult }> => {
    log(`server capacity (memory store): ${options.visitors} visitors…`);
    const capacity = await runCapacity(options);
    if (process.env.BENCH_REDIS !== '1') return { capacity };
    log(`server capacity (Redis store): ${options.visitors} visitors…`);
    return { capacity, capacityRedis: await withRedis((redisUrl, probes) => runCapacity({ ...options, ...probes, redisUrl })) };
  },
  stores: async ({ capacity: options, log }) => {
    log(`queue_info throughput, Redis store beside the memory store: ${options.visitors} visitors held on each…`);
    return { storeComparison: await withRedis((redisUrl, probes) => compareStores({ ...options, ...probes, redisUrl })) };
  },
  admission: async ({ pageDir, log }) => {
    log('adaptive admission: rooms in front of origins of known capacity, side by side, then the origins halve…');
    const { warmupSeconds, steadySeconds, halvedSeconds } = DEFAULT_ADMISSION_OPTIONS;
    const seconds = {
      warmupSeconds: numberFromEnv('BENCH_ADMISSION_WARMUP_SECONDS', warmupSeconds, 10),
      steadySeconds: numberFromEnv('BENCH_ADMISSION_STEADY_SECONDS', steadySeconds, 10),
      halvedSeconds: numberFromEnv('BENCH_ADMISSION_HALVED_SECONDS', halvedSeconds, RESETTLE_SECONDS + 10),
    };
    return { admission: await measureAdmission({ ...DEFAULT_ADMISSION_OPTIONS, ...seconds, pageDir, log }) };
  },
  opening: async ({ log }) => {
    log('opening bursts: adaptive admission on a virtual clock, crowds in the first seconds…');
    return { opening: await measureOpening() };
  },
  gateway: async ({ pageDir, log }) => {
    log(`gateway overhead: a Node http origin, directly and through the gateway…`);
    const seconds = numberFromEnv('BENCH_GATEWAY_SECONDS', 4, 1);
    const [connections, downloadMib] = [countFromEnv('BENCH_GATEWAY_CONNECTIONS', 64, 1), countFromEnv('BENCH_GATEWAY_DOWNLOAD_MB', 100, 1)];
    const originWorkMicros = numberFromEnv('BENCH_GATEWAY_ORIGIN_WORK_US', 1000, 1);
    return { gateway: await measureGatewayOverhead({ seconds, connections, downloadMib, originWorkMicros, pageDir, log }) };
  },
  drop: async ({ log }) => {
    const entrants = countFromEnv('BENCH_DROP_ENTRANTS', 100_000, 10);
    log(`drop: an event opening with ${entrants} in its pre-queue, on the memory store and on Redis…`);
    return { drop: await withRedis((redisUrl) => measureDrop({ entrants, redisUrl, log })) };
  },
  million: async ({ pageDir, log }) => {
    const places = countFromEnv('BENCH_MILLION_PLACES', 1_000_000, 1000);
    log(`million: ${places} places in one room on one Redis, and a gateway's copy of the line…`);
    return { million: await withRedis((redisUrl) => measureMillion({ places, checkpoints: [100_000, 300_000], redisUrl, pageDir, log })) };
  },
  split: async ({ log }) => {
    const arrivals = countFromEnv('BENCH_SPLIT_ARRIVALS', 20_000, 100);
    const parts = countFromEnv('BENCH_SPLIT_PARTS', 3, 2);
    return { split: await measureSplit({ arrivals, parts, log }) };
  },
  arrivals: async ({ pageDir, log }) => {
    const count = countFromEnv('BENCH_ARRIVALS', 10_000, 100);
    log(`arrivals: ${count} held arrivals through the gateway on Redis, the CPU and memory of each…`);
    return { arrivals: await withRedis((redisUrl) => measureArrivals({ arrivals: count, warmup: 2000, concurrency: 32, redisUrl, pageDir, log })) };
  },
  'opening-million': async ({ log }) => {
    const entrants = countFromEnv('BENCH_OPENING_ENTRANTS', 1_000_000, 10);
    log(`opening-million: an event opening with ${entrants} pre-queued, on one Redis…`);
    return { openingMillion: await withRedis((redisUrl) => measureOpeningMillion({ entrants, redisUrl, log })) };
  },
  ramp: async ({ pageDir, log }) => {
    const ramps: RampResult[] = [];
    for (const store of (process.env.BENCH_RAMP_STORES || 'memory,redis').split(/[\s,]+/).filter(Boolean)) {
      if (store !== 'memory' && store !== 'redis') throw new Error(`BENCH_RAMP_STORES: unknown store ${store}; known: memory, redis.`);
      const rampOptions = {
        store,
        step: countFromEnv('BENCH_RAMP_STEP', 2500, 100),
        maxVisitors: countFromEnv('BENCH_RAMP_MAX', 40_000, 100),
        measureSeconds: numberFromEnv('BENCH_RAMP_SECONDS', 10, 2),
        releasePerMinute: countFromEnv('BENCH_RAMP_RELEASE_PER_MINUTE', 600, 60),
        releaseP99LimitMs: 1000,
        pageDir,
        log,
      } as const;
      log(`capacity ramp (${store} store): visitors added until the first error or a release p99 over 1 s…`);
      ramps.push(store === 'redis' ? await withRedis((redisUrl) => runRamp({ ...rampOptions, redisUrl })) : await runRamp(rampOptions));
    }
    return { ramps };
  },
  connector: async ({ log }) => ({ connectorPass: await measureConnectorPass({ visitors: 2000, requestsEach: 50, log }) }),
} satisfies Record<string, (context: Context) => Promise<object>>;
type Part = keyof typeof PARTS;
/** What the parts measured: the results' fields beside the run's own (each part's, any of them). */
type Measured = Partial<UnionToIntersection<Awaited<ReturnType<(typeof PARTS)[Part]>>>>;
type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (intersection: infer I) => void ? I : never;

async function main(): Promise<void> {
  const started = Date.now();
  const loadAtStart = os.loadavg().map((load) => round(load));
  const only = new Set((process.env.BENCH_ONLY || DEFAULT_PARTS).split(/[\s,]+/).filter(Boolean));
  const unknown = [...only].filter((part) => !(part in PARTS));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown part ${unknown.join(', ')}; known: ${Object.keys(PARTS).join(', ')}.`);
  // With Redis, the capacity part sets the two stores side by side too.
  const withStores = only.has('capacity') && process.env.BENCH_REDIS === '1';
  const parts = (Object.keys(PARTS) as Part[]).filter((part) => part === 'page' || only.has(part) || (part === 'stores' && withStores));
  const log = (line: string) => console.log(line);
  const workDir = mkdtempSync(path.join(tmpdir(), 'waiting-room-bench-'));
  try {
    const pageDir = path.join(workDir, 'page');
    /** How long each part took (s): bench/README.md quotes them. */
    const partSeconds: Record<string, number> = {};
    const visitors = countFromEnv('BENCH_VISITORS', 10_000, 10);
    // A quarter of the visitors a minute at most: the paced runs, about a minute, leave some waiting for the closed loop.
    const releasePerMinute = countFromEnv('BENCH_RELEASE_PER_MINUTE', Math.min(1200, Math.ceil(visitors / 4)), 60);
    const capacity: CapacityOptions = {
      visitors,
      visitorProcesses: countFromEnv('BENCH_VISITOR_PROCESSES', 4, 1),
      factor: numberFromEnv('BENCH_TIME_FACTOR', 2, 0.1),
      pollSeconds: numberFromEnv('BENCH_POLL_SECONDS', 20, 1),
      pacedRepetitions: countFromEnv('BENCH_PACED_REPETITIONS', 3, 1),
      saturateSeconds: numberFromEnv('BENCH_SATURATE_SECONDS', 4, 1),
      repetitions: countFromEnv('BENCH_REPETITIONS', 5, 1),
      connections: countFromEnv('BENCH_CONNECTIONS', 64, 1),
      ...{ pollSockets: 256, releasePerMinute, sessionSeconds: 5, pageDir, log },
      // Room for ten seconds of releases, so the rate is the limit, not the active sessions.
      activeLimit: Math.ceil(releasePerMinute / 6),
    };
    const measured: Measured = {};
    for (const part of parts) {
      const partStarted = Date.now();
      Object.assign(measured, await PARTS[part]({ pageDir, log, capacity }));
      partSeconds[part] = round((Date.now() - partStarted) / 1000, 1);
    }
    const { pageLoad, ownPageLoad, languageLoads, capacityRedis, storeComparison } = measured;
    const results = {
      date: new Date().toISOString(),
      machine: {
        ...{ cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version },
        ...{ loadAverageAtStart: loadAtStart, loadAverageAtEnd: os.loadavg().map((load) => round(load)) },
      },
      seconds: (Date.now() - started) / 1000,
      partSeconds,
      // The parts this run measured: latest.json and latest.md hold these only (the page is always built).
      parts: ['page', ...[...only].filter((part) => part !== 'page')],
      targets: [
        ...(pageLoad ? pageLoadChecks(pageLoad) : []),
        ...(ownPageLoad ? pageLoadChecks(ownPageLoad, "page, a room's own (docs/examples)") : []),
        ...(languageLoads ? languageLoadChecks(languageLoads) : []),
        ...figureChecks(measured, false),
        ...(measured.gateway ? gatewayChecks(measured.gateway) : []),
        ...(measured.admission ? admissionChecks(measured.admission) : []),
        ...(measured.opening ? openingChecks(measured.opening) : []),
        ...(measured.connectorPass ? connectorPassChecks(measured.connectorPass) : []),
      ],
      targetsRedis: capacityRedis || storeComparison ? figureChecks(measured, true) : undefined,
      ...measured,
      languageLoads: undefined,
    };
    const baseline = readBaseline(resultsDir);
    const compared = { ...results, previousRun: baseline && { file: baseline.file, date: baseline.date }, comparison: compareRuns(results, baseline?.results) };
    mkdirSync(resultsDir, { recursive: true });
    const markdown = renderMarkdown(compared);
    // One line: git keeps this file and the baseline, and indenting doubled their size.
    const json = JSON.stringify(compared) + '\n';
    const dated = `run-${results.date.replace(/[:.]/g, '-')}.json`;
    const write = (file: string, text: string) => writeFileSync(path.join(resultsDir, file), text);
    for (const file of ['latest.json', dated]) write(file, json);
    write('latest.md', markdown);
    // The opening's figures, an arrival's costs and a split room's are kept apart too: the docs show them whatever the last run measured.
    const { date, machine: on } = results;
    if (measured.opening) write(OPENING_FILE, `${JSON.stringify({ date, opening: measured.opening }, null, 2)}\n`);
    if (measured.arrivals) write(ARRIVALS_FILE, `${JSON.stringify({ date, machine: on, arrivals: measured.arrivals }, null, 2)}\n`);
    if (measured.split) write(SPLIT_FILE, `${JSON.stringify({ date, machine: on, split: measured.split }, null, 2)}\n`);
    console.log('\n' + markdown);
    console.log(`written: ${path.relative(process.cwd(), path.join(resultsDir, 'latest.json'))}, latest.md and ${dated}`);
    // The page's JavaScript budget, on what Chromium fetched before the position: past it, the bench fails.
    if (pageLoad) checkPageBudget(pageLoad);
    if (ownPageLoad) checkPageBudget(ownPageLoad);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

type StoreProbes = { storeMemory: () => Promise<number>; storeCpu: () => Promise<number>; flushStore: () => Promise<void> };

/** Runs `run` against a redis-server of its own on a free port, with probes of its memory and CPU time. */
async function withRedis<T>(run: (url: string, probes: StoreProbes) => Promise<T>): Promise<T> {
  const { startRedisServer } = await import('../spec/support/redis-server');
  const { default: Redis } = await import('ioredis');
  const redis = await startRedisServer();
  const probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const probes = { storeMemory: () => usedMemory(probe), storeCpu: () => redisCpuSeconds(probe), flushStore: async () => void (await probe.flushall()) };
  try {
    return await run(redis.url, probes);
  } finally {
    probe.disconnect();
    await redis.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
