/**
 * Wait estimate accuracy: a simulated line on the real memory store, driven by a simulated
 * clock (every store call takes `now`), released by the store's own `releaseDue` once a second
 * as the release loop does, and estimated by the real `estimateMinutes` over the release times
 * the store keeps, exactly as queue_info computes it. The release rate changes halfway.
 *
 * Each waiting visitor's estimate is sampled every 15 s; once everyone sampled is released,
 * the estimate is compared with the wait that actually followed.
 */
import { estimateMinutes } from '../server/domain/estimate';
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

interface Sample {
  readonly at: number;
  readonly uuid: string;
  readonly position: number;
  readonly estimated: number;
}

/** Runs the simulation once per seed and reports the median of each figure. */
export async function measureEstimateAccuracy(options: EstimateOptions = DEFAULT_ESTIMATE_OPTIONS) {
  const runs: Awaited<ReturnType<typeof simulate>>[] = [];
  for (const seed of options.seeds) runs.push(await simulate(options, seed));
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

async function simulate(options: EstimateOptions, seed: number) {
  const random = mulberry32(seed);
  const store = new MemoryStore();
  const change = options.changeAtMinutes * MINUTE;
  const end = options.endAtMinutes * MINUTE;
  const rateAt = (now: number) => (now < change ? options.rateBefore : options.rateAfter);
  const releasedAt = new Map<string, number>();
  const waiting = new Set<string>();
  // The admission limit never binds: the release rate is the only limit, as in the scenario.
  const policyAt = (now: number): ReleasePolicy => ({
    activeLimit: 1_000_000,
    sessionMs: 5 * MINUTE,
    perMinute: rateAt(now),
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
  let nextArrival = exponential(random, rateAt(0));

  for (let now = 0; now < end || waiting.size > 0; now += STEP_MS) {
    while (now < end && nextArrival <= now) {
      await arrive(now);
      nextArrival += exponential(random, rateAt(nextArrival));
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
        const estimated = estimateMinutes(place.position, place.recentReleases, now, policyAt(now).perMinute);
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
