/**
 * Wait estimate accuracy: a simulated line on the real memory store, driven by a simulated
 * clock (every store call takes `now`), released by the store's own `releaseDue` once a second
 * as the release loop does, and estimated by the real `estimateMinutes` over the release times
 * the store keeps, exactly as queue_info computes it. The release rate changes halfway.
 *
 * Each waiting visitor's estimate is sampled every 15 s; once everyone sampled is released,
 * the estimate is compared with the wait that actually followed.
 */
import pino from 'pino';
import { AdaptiveAdmission } from '../server/domain/admission/admission';
import { MemoryAdmissionStore } from '../server/store/admission-memory';
import { estimateMinutes } from '../server/domain/estimate';
import { ModelOrigin } from '../spec/server/support/model-origin';
import { MemoryStore } from '../server/store/memory';
import type { ReleasePolicy } from '../server/store/types';
import { mean, median, mulberry32 } from './stats';

const MINUTE = 60_000;
const STEP_MS = 1000;
const SAMPLE_MS = 15_000;

export interface EstimateOptions {
  /** Releases a minute before and after the change. */
  readonly rateBefore: number;
  readonly rateAfter: number;
  /** When the rate changes, and when sampling stops (minutes from the start). */
  readonly changeAtMinutes: number;
  readonly endAtMinutes: number;
  /** Visitors waiting at the start; later ones arrive at random at the current release rate. */
  readonly initialLine: number;
  readonly seeds: readonly number[];
  /**
   * Set: nobody sets the rate. The server's own adaptive controller (`AdaptiveAdmission`) does, in
   * front of a model origin (`spec/server/support/model-origin.ts`) that can take `rateBefore`
   * then `rateAfter` visits a minute, each visit `perVisit` requests over `visitSeconds`: the
   * rate rises from a tenth of its ceiling (four times `rateBefore`), saws around the origin's
   * capacity, and is cut when the capacity halves. queue_info gives the estimate the rate in force.
   */
  readonly adaptive?: { readonly perVisit: number; readonly visitSeconds: number; readonly feedbackSeconds: number };
  /** Visitors arrive at this multiple of the rate (1 unless said): above 1, the line grows. */
  readonly arrivalFactor?: number;
}

/** The scenario the targets are judged on: 6 a minute, halved at minute 20. */
export const DEFAULT_ESTIMATE_OPTIONS: EstimateOptions = {
  rateBefore: 6,
  rateAfter: 3,
  changeAtMinutes: 20,
  endAtMinutes: 40,
  initialLine: 40,
  seeds: [1, 2, 3, 4, 5],
};

/**
 * The rate set by the adaptive controller in front of an origin of 30 visits a minute that halves
 * at minute 30 (visits of a minute, eight requests each), 300 waiting at the start: judged on its
 * steady error too.
 */
export const ADAPTIVE_ESTIMATE: { readonly label: string; readonly options: EstimateOptions } = {
  label: 'adaptive, the origin takes 30 → 15/min',
  options: {
    ...DEFAULT_ESTIMATE_OPTIONS,
    rateBefore: 30,
    rateAfter: 15,
    initialLine: 300,
    changeAtMinutes: 30,
    endAtMinutes: 50,
    // A crowd: more arrive than the origin can take, so that the line never empties.
    arrivalFactor: 1.2,
    adaptive: { perVisit: 8, visitSeconds: 60, feedbackSeconds: 60 },
  },
};

interface Sample {
  readonly at: number;
  readonly uuid: string;
  readonly position: number;
  readonly estimated: number;
}

/** Runs the simulation once per seed and reports the median of each figure. */
export async function measureEstimateAccuracy(options: EstimateOptions = DEFAULT_ESTIMATE_OPTIONS, estimate: Estimator = estimateMinutes) {
  const runs: Awaited<ReturnType<typeof simulate>>[] = [];
  for (const seed of options.seeds) runs.push(await simulate(options, seed, estimate));
  const pick = (key: keyof (typeof runs)[number]['figures']) => median(runs.map((run) => run.figures[key]));
  return {
    settings: { ...options, releaseLoopMs: STEP_MS, sampleEveryMs: SAMPLE_MS },
    runs: runs.length,
    median: {
      steadyMaeMinutes: pick('steadyMaeMinutes'),
      afterChangeMaeMinutes: pick('afterChangeMaeMinutes'),
      minutesUntilWithin1: pick('minutesUntilWithin1'),
      minutesUntilWithin2: pick('minutesUntilWithin2'),
    },
  };
}

export type EstimateResult = Awaited<ReturnType<typeof measureEstimateAccuracy>>;

/** The shape of `estimateMinutes`, so that a candidate change can be measured the same way. */
export type Estimator = typeof estimateMinutes;

async function simulate(options: EstimateOptions, seed: number, estimate: Estimator) {
  const random = mulberry32(seed);
  const store = new MemoryStore();
  const change = options.changeAtMinutes * MINUTE;
  const end = options.endAtMinutes * MINUTE;
  const rateAt = (now: number) => (now < change ? options.rateBefore : options.rateAfter);
  const arrivalRateAt = (now: number) => rateAt(now) * (options.arrivalFactor ?? 1);
  const releasedAt = new Map<string, number>();
  const waiting = new Set<string>();
  const controller = options.adaptive && adaptiveRate(options, options.adaptive, () => waiting.size);
  // The admission limit never binds: the release rate is the only limit, as in the scenario.
  const policyAt = (now: number): ReleasePolicy => ({
    activeLimit: 1_000_000,
    sessionMs: 5 * MINUTE,
    perMinute: controller ? controller.perMinute() : rateAt(now),
    abandonMs: 24 * 60 * MINUTE,
  });
  const samples: Sample[] = [];
  let visitorCount = 0;

  const arrive = async (now: number) => {
    const entry = await store.hold(`session-${visitorCount}`, 0, { method: 'GET', uri: `/checkout?item=${visitorCount}` }, now);
    visitorCount++;
    waiting.add(entry.uuid);
  };
  for (let i = 0; i < options.initialLine; i++) await arrive(0);
  let nextArrival = exponential(random, arrivalRateAt(0));

  for (let now = 0; now < end || waiting.size > 0; now += STEP_MS) {
    await controller?.step(now, now >= change);
    while (now < end && nextArrival <= now) {
      await arrive(now);
      nextArrival += exponential(random, arrivalRateAt(nextArrival));
    }
    const { released } = await store.releaseDue(now, policyAt(now));
    for (const entry of released) {
      releasedAt.set(entry.uuid, now);
      waiting.delete(entry.uuid);
    }
    if (now < end && now % SAMPLE_MS === 0) {
      for (const uuid of waiting) {
        const place = await store.placeInLine(uuid, now);
        if (!place) throw new Error(`the store lost ${uuid}`);
        // As queue_info: the estimate gets the configured rate, i.e. the policy in force.
        const estimated = estimate(place.position, place.recentReleases, now, policyAt(now).perMinute);
        samples.push({ at: now, uuid, position: place.position, estimated });
      }
    }
  }

  const errorOf = (sample: Sample) => Math.abs(sample.estimated - (releasedAt.get(sample.uuid)! - sample.at) / MINUTE);
  const byTime = new Map<number, number[]>();
  for (const sample of samples) {
    const list = byTime.get(sample.at) ?? [];
    list.push(errorOf(sample));
    byTime.set(sample.at, list);
  }
  const maeAt = [...byTime].map(([at, errors]) => ({ at, mae: mean(errors) }));
  const steady = samples.filter((sample) => sample.at >= 5 * MINUTE && releasedAt.get(sample.uuid)! < change);
  const afterChange = samples.filter((sample) => sample.at >= change && sample.at < change + 2 * MINUTE);
  const until = (bound: number) => {
    const after = maeAt.filter(({ at }) => at >= change);
    const lastOutside = after.filter(({ mae }) => mae > bound).pop();
    if (!lastOutside) return 0;
    return (lastOutside.at + SAMPLE_MS - change) / MINUTE;
  };
  return {
    seed,
    figures: {
      steadyMaeMinutes: round(mean(steady.map(errorOf))),
      afterChangeMaeMinutes: round(mean(afterChange.map(errorOf))),
      minutesUntilWithin1: round(until(1)),
      minutesUntilWithin2: round(until(2)),
    },
  };
}

const round = (value: number) => Math.round(value * 100) / 100;

/** Milliseconds to the next arrival of a Poisson process of `perMinute`. */
function exponential(random: () => number, perMinute: number): number {
  return (-Math.log(1 - random()) / perMinute) * MINUTE;
}

/**
 * The adaptive controller on the simulation's clock: every two seconds the model origin runs at
 * the rate in force and the controller takes its step, as the server's loop would.
 */
function adaptiveRate(options: EstimateOptions, adaptive: NonNullable<EstimateOptions['adaptive']>, waiting: () => number) {
  const requestsPerSecond = (visitsPerMinute: number) => (visitsPerMinute * adaptive.perVisit) / 60;
  const origin = new ModelOrigin(requestsPerSecond(options.rateBefore), {
    perVisit: adaptive.perVisit,
    visitSeconds: adaptive.visitSeconds,
    serviceMs: 200,
    subStepMs: 100,
  });
  let simulated = 0;
  const stepMs = 2000;
  // The ceilings: four times what the origin takes, and no limit on sessions at once.
  const operated = { perMinute: 4 * options.rateBefore, activeLimit: 1_000_000, sessionMs: 5 * MINUTE, abandonMs: 24 * 60 * MINUTE };
  const admission = new AdaptiveAdmission({
    operated: () => operated,
    settings: { targetMs: 1000, feedbackMs: adaptive.feedbackSeconds * 1000, stepMs, sessionMs: 5 * MINUTE },
    store: new MemoryAdmissionStore(),
    clock: { now: () => simulated, every: () => () => {} },
    log: pino({ level: 'silent' }),
    room: async () => ({ waiting: waiting(), paused: false }),
    // Simulated time: the process's own event loop has nothing to do with it.
    loopLagMs: () => 0,
  });
  return {
    perMinute: () => admission.policy().perMinute,
    async step(now: number, changed: boolean) {
      simulated = now;
      if (now % stepMs !== 0) return;
      origin.capacity = requestsPerSecond(changed ? options.rateAfter : options.rateBefore);
      origin.run(stepMs, admission.policy().perMinute, [admission.signals]);
      await admission.step();
    },
  };
}
