/**
 * Adaptive admission against fixed settings, side by side in one run (bench/README.md): rooms in
 * front of origins of known capacity (`origin.ts`), visitors at several times it (`visitors.ts`).
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Child } from '../capacity/ipc';
import { percentile, preciseNow, round } from '../stats';
import { check, TARGETS, type TargetCheck } from '../goals';
import type { OriginFigures, OriginSpec } from './origin';
import type { VisitorFigures, VisitorsOptions } from './visitors';

/**
 * `feedbackSeconds`: ADMISSION_FEEDBACK_SECONDS, about a visit's length; arrivals at
 * `arrivalsFactor` × the origin's capacity in visits while fewer than `lineCap` wait;
 * `halvedSeconds`: after the halving, the re-settle window (60 s) and a little more.
 */
export const DEFAULT_ADMISSION_OPTIONS = {
  origin: { workers: 16, serviceMs: 100, jitter: 0.2 },
  perVisit: 8,
  thinkMs: [500, 1500],
  reactionMs: [0, 1000],
  sessionSeconds: 20,
  feedbackSeconds: 12,
  targetMs: 400,
  upstreamTimeoutMs: 5000,
  arrivalsFactor: 3,
  lineCap: 200,
  warmupSeconds: 150,
  steadySeconds: 40,
  halvedSeconds: 80,
} satisfies Omit<VisitorsOptions, 'targets' | 'arrivalsPerSecond' | 'seed'> & Record<string, unknown>;
type AdmissionBenchOptions = typeof DEFAULT_ADMISSION_OPTIONS & { readonly origin: OriginSpec; readonly pageDir: string; readonly log: (line: string) => void };

/** The errors allowed while re-settling, and the time allowed for it. */
export const RESETTLE_SECONDS = 60;

/** Each room: its admission, and its fixed rate as a multiple of the origin's capacity (adaptive: its ceilings'). */
const CONFIGURATIONS = [
  { name: 'adaptive', admission: 'adaptive', factor: 4 },
  { name: 'fixed at half', admission: 'fixed', factor: 0.5 },
  { name: 'fixed about right', admission: 'fixed', factor: 1 },
  { name: 'fixed at double', admission: 'fixed', factor: 2 },
] as const;
type Configuration = (typeof CONFIGURATIONS)[number];
type GatewayReady = { readonly url: string; readonly realtimeKey: string };

/** Every figure of the run, each room's in `rooms`: bench/README.md says what each is. */
export type AdmissionResult = Awaited<ReturnType<typeof measureAdmission>>;

export async function measureAdmission(options: AdmissionBenchOptions) {
  const { log, origin: spec } = options;
  const capacityPerSecond = (spec.workers * 1000) / spec.serviceMs;
  const visitsPerMinute = (capacityPerSecond / options.perVisit) * 60;
  const children: Child<unknown>[] = [];
  try {
    const origins = await Child.start<{ pid: number }>(path.join(__dirname, 'origin.ts'), { name: 'admission bench origins' });
    children.push(origins);
    const urls = await origins.request<string[]>('start', { count: CONFIGURATIONS.length, spec });
    const envs = CONFIGURATIONS.map((configuration, i) => roomEnv(configuration, urls[i], visitsPerMinute, options));
    const gateways = await Promise.all(
      envs.map((env, i) =>
        Child.start<GatewayReady>(path.join(__dirname, 'gateway.ts'), {
          name: `admission bench room ${CONFIGURATIONS[i]?.name}`,
          env: { ...process.env, BENCH_PAGE_DIR: options.pageDir, BENCH_ADMISSION_ENV: JSON.stringify(env) },
        }),
      ),
    );
    children.push(...gateways);
    const visitors = await Child.start<{ pid: number }>(path.join(__dirname, 'visitors.ts'), { name: 'admission bench visitors' });
    children.push(visitors);
    log(`  origins of ${capacityPerSecond} requests/s (${visitsPerMinute} visits/min), rooms: ${CONFIGURATIONS.map((c) => c.name).join(', ')}`);

    const visitorOptions: VisitorsOptions = {
      targets: gateways.map((gateway, i) => ({ name: CONFIGURATIONS[i]?.name, url: gateway.ready.url, realtimeKey: gateway.ready.realtimeKey })),
      arrivalsPerSecond: (options.arrivalsFactor * visitsPerMinute) / 60,
      lineCap: options.lineCap,
      perVisit: options.perVisit,
      thinkMs: options.thinkMs,
      reactionMs: options.reactionMs,
      seed: 7,
    };
    const { startedAt } = await visitors.request<{ startedAt: number }>('start', visitorOptions);
    const steadyFrom = startedAt + options.warmupSeconds * 1000;
    const halvedAt = steadyFrom + options.steadySeconds * 1000;
    const end = halvedAt + options.halvedSeconds * 1000;
    log(`  warm-up ${options.warmupSeconds} s, steady ${options.steadySeconds} s, then half the origins' workers for ${options.halvedSeconds} s…`);
    await sleep(halvedAt - preciseNow());
    await origins.request('halve');
    await sleep(end - preciseNow());

    const windowOf = async (from: number, to: number, capacity: number) => {
      const [originFigures, visitorFigures] = await Promise.all([
        origins.request<OriginFigures[]>('figures', { from, to }),
        visitors.request<VisitorFigures[]>('figures', { from, to }),
      ]);
      return originFigures.map((origin, i) => ({
        goodput: Math.round((origin.answeredPerSecond / capacity) * 1000) / 1000,
        origin,
        visitors: visitorFigures[i],
      }));
    };
    const resettleUntil = halvedAt + RESETTLE_SECONDS * 1000;
    const [steady, halved, after, answers, serviceMs] = await Promise.all([
      windowOf(steadyFrom, halvedAt, capacityPerSecond),
      windowOf(halvedAt, resettleUntil, capacityPerSecond / 2),
      windowOf(resettleUntil, end, capacityPerSecond / 2),
      origins.request<[number, number][][]>('answers', { from: startedAt }),
      origins.request<number[]>('serviceMs'),
    ]);
    await visitors.request('stop');

    const rooms = CONFIGURATIONS.map((configuration, i) => {
      const pairs = answers[i];
      return {
        name: configuration.name,
        env: Object.fromEntries(['ADMISSION', 'RELEASE_PER_MINUTE', 'ACTIVE_LIMIT'].map((name) => [name, envs[i][name]])),
        steady: steady[i],
        halved: halved[i],
        after: after[i],
        resettleSeconds: resettle(pairs, halvedAt, end, options.targetMs, capacityPerSecond / 2),
      };
    });
    return {
      settings: { ...options, pageDir: undefined, log: undefined, resettleSeconds: RESETTLE_SECONDS },
      capacity: { requestsPerSecond: capacityPerSecond, visitsPerMinute, halvedRequestsPerSecond: capacityPerSecond / 2 },
      /** The mean service time each origin's timers gave (ms): above `serviceMs`, the machine was short of time. */
      measuredServiceMs: serviceMs.map((ms) => round(ms, 1)),
      loadAverage: os.loadavg().map((load) => round(load)),
      rooms,
    };
  } finally {
    await Promise.allSettled(children.map((child) => child.stop()));
  }
}

/** A room's configuration: the same for all but its admission, rate and limit. */
function roomEnv(configuration: Configuration, upstream: string, visitsPerMinute: number, options: AdmissionBenchOptions): Record<string, string> {
  const perMinute = Math.round(configuration.factor * visitsPerMinute);
  return {
    UPSTREAM: upstream,
    PORT: '0',
    HOST: '127.0.0.1',
    PROTECT: '/shop',
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN: randomBytes(24).toString('base64url'),
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    SESSION_SECONDS: String(options.sessionSeconds),
    ADMISSION_FEEDBACK_SECONDS: String(options.feedbackSeconds),
    AWAY_SECONDS: '600',
    UPSTREAM_TIMEOUT_MS: String(options.upstreamTimeoutMs),
    UPSTREAM_CONNECTIONS: '1024',
    ORIGIN_LATENCY_TARGET_MS: String(options.targetMs),
    REALTIME_MAX_SUBSCRIPTIONS: '1000',
    REALTIME_MESSAGES_PER_SECOND: '10000',
    // Every simulated visitor connects from 127.0.0.1.
    REALTIME_MAX_CONNECTIONS_PER_ADDRESS: '10000000',
    ADMISSION: configuration.admission,
    RELEASE_PER_MINUTE: String(perMinute),
    // The sessions a rate fills: each admission lasts SESSION_SECONDS.
    ACTIVE_LIMIT: String(Math.ceil((perMinute * options.sessionSeconds) / 60)),
  };
}

/**
 * Seconds after the halving from which the origin's p99 to the end is within the target and its
 * answers at least 90 % of the halved capacity (5 s steps); null when no such time came.
 */
function resettle(answers: readonly [number, number][], halvedAt: number, end: number, targetMs: number, capacity: number): number | null {
  for (let t = halvedAt; t < end - 5000; t += 5000) {
    const latencies = answers.filter(([at]) => at >= t && at < end).map(([, ms]) => ms);
    const perSecond = latencies.length / ((end - t) / 1000);
    if (percentile(latencies, 99) <= targetMs && perSecond >= 0.9 * capacity) return (t - halvedAt) / 1000;
  }
  return null;
}

type RoomResult = AdmissionResult['rooms'][number];

/** PASS/MISS for adaptive admission: its goodput, against every fixed setting that kept the origin healthy, and after the halving. */
export function admissionChecks({ settings: { targetMs }, rooms }: AdmissionResult): TargetCheck[] {
  // Healthy in a window: the origin's p99 within the target, fewer than 1 % errors.
  const healthy = (window: RoomResult['steady']) => window.origin.latencyMs.p99 <= targetMs && window.visitors.errorShare < TARGETS.adaptiveResettleErrorShare;
  const adaptive = rooms.find((room) => room.env.ADMISSION === 'adaptive') as RoomResult;
  const fixed = rooms.filter((room) => room !== adaptive);
  const { steady, halved, resettleSeconds: resettled } = adaptive;
  const beats = (rivals: RoomResult[], none: string) =>
    [
      rivals.length === 0 ? none : rivals.map((room) => `${room.name} ${room.steady.goodput.toFixed(2)}`).join(', ') + ` against ${steady.goodput.toFixed(2)}`,
      rivals.every((room) => steady.goodput > room.steady.goodput),
    ] as const;
  return [
    check(
      "adaptive admission: goodput ÷ the origin's capacity, steady, its p99 within the target",
      `≥ ${TARGETS.adaptiveGoodput}, p99 ≤ ${targetMs} ms`,
      `${steady.goodput.toFixed(2)}, p99 ${steady.origin.latencyMs.p99} ms`,
      steady.goodput >= TARGETS.adaptiveGoodput && healthy(steady),
    ),
    check(
      'adaptive admission beats every fixed setting that keeps the origin healthy (steady)',
      'higher goodput than each',
      ...beats(
        fixed.filter((room) => healthy(room.steady)),
        'no fixed setting kept the origin healthy',
      ),
      "a setting is healthy when the origin's p99 is within the target and visitors see under 1 % errors",
    ),
    check(
      'adaptive admission beats every fixed setting that keeps the origin healthy through the run, the halving included (steady goodput)',
      'higher goodput than each',
      ...beats(
        fixed.filter((room) => [room.steady, room.halved, room.after].every(healthy)),
        'no fixed setting kept the origin healthy through the run',
      ),
    ),
    check(
      'adaptive admission after the origin loses half its capacity',
      `p99 back within the target in ≤ ${TARGETS.adaptiveResettleSeconds} s, < 1 % errors`,
      `${resettled === null ? 'not within the run' : `${resettled} s`}, ${(halved.visitors.errorShare * 100).toFixed(2)} % errors`,
      resettled !== null && resettled <= TARGETS.adaptiveResettleSeconds && halved.visitors.errorShare < TARGETS.adaptiveResettleErrorShare,
    ),
  ];
}
