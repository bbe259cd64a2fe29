/**
 * Opening bursts on a virtual clock (docs/adaptive-admission.md), so that the figures are the same
 * on any machine: the real `AdaptiveAdmission` and `MemoryStore` decide; the origin and the
 * visitors are modelled as `origin.ts` and `visitors.ts` are.
 */
import pino from 'pino';
import { AdaptiveAdmission } from '../../server/domain/admission/admission';
import { MemoryAdmissionStore } from '../../server/store/admission-memory';
import type { Clock } from '../../server/domain/clock';
import { MemoryStore } from '../../server/store/memory';
import type { ReleasePolicy } from '../../server/store/types';
import { mulberry32, percentile, round } from '../stats';
import { check, TARGETS, type TargetCheck } from '../goals';

/**
 * `crowd` arrives evenly over `arrivalSeconds`; a visit is `perVisit` requests a think time apart;
 * `ceilingFactor`: RELEASE_PER_MINUTE and ACTIVE_LIMIT as a multiple of what fills the origin;
 * `lineCap`: arrivals turned away while this many wait; `coldStartMs`: the origin's first answers
 * this much slower; `stalls`: the event loop stalled `ms` about every `everyMs`, each answer then
 * measured late; `window`: figures of [from, to) s besides the whole run's.
 */
export type OpeningScenario = Crowd & Visit & Extras;
type Crowd = { name: string; crowd: number; arrivalSeconds: number; workers: number; serviceMs: number; ceilingFactor: number };
type Visit = { perVisit: number; thinkMs: readonly [number, number]; sessionSeconds: number; feedbackSeconds: number; targetMs: number; runSeconds: number };
type Extras = Partial<{ lineCap: number; coldStartMs: readonly number[]; stalls: { everyMs: number; ms: number }; window: readonly [number, number] }>;

/** The server's own defaults and the real-time benchmark's, where a scenario does not say. */
const COMMON = { arrivalSeconds: 10, serviceMs: 100, ceilingFactor: 20, reactionMs: [0, 1000], upstreamTimeoutMs: 5000 } as const;
const RELEASE_LOOP_MS = 1000;
const STEP_MS = 2000;
/** The real-time benchmark's compressed visit, and a visit at a person's pace with the server's default target. */
const QUICK = { perVisit: 8, thinkMs: [500, 1500], sessionSeconds: 20, feedbackSeconds: 12, targetMs: 400, runSeconds: 180, ...COMMON } as const;
const PERSON = { perVisit: 10, thinkMs: [3000, 9000], sessionSeconds: 120, feedbackSeconds: 120, targetMs: 1000, runSeconds: 600, ...COMMON } as const;

/**
 * The admission benchmark's room (`run-admission.ts`) started cold: the origin's first two answers slow, as a server just started
 * gives them, and now and then a few slow, as a busy machine's late event loop makes them. Judged as that benchmark judges it, on its
 * steady window: a few slow answers in the opening must not leave the room far under the origin's capacity minutes later.
 */
export const STARTED_COLD: OpeningScenario = {
  ...QUICK,
  name: "the admission benchmark's room, started cold",
  crowd: 60 * 190,
  arrivalSeconds: 190,
  lineCap: 200,
  coldStartMs: [300, 200],
  stalls: { everyMs: 10_000, ms: 200 },
  window: [150, 190],
  workers: 16,
  ceilingFactor: 4,
  runSeconds: 190,
};

/** Crowds of several sizes, origins of several capacities, visitors at the real-time benchmark's compressed pace (`QUICK`) or a person's. */
export const OPENING_SCENARIOS: readonly OpeningScenario[] = [
  { name: 'small crowd, small origin, quick visits', crowd: 1000, workers: 4, ...QUICK },
  { name: 'crowd of 5,000, quick visits', crowd: 5000, workers: 16, ...QUICK },
  { name: 'crowd of 20,000, large origin, quick visits', crowd: 20_000, workers: 64, ...QUICK },
  { name: 'crowd of 5,000, frantic visits', crowd: 5000, workers: 16, ...QUICK, perVisit: 20, thinkMs: [100, 500] },
  { name: "crowd of 10,000, visits at a person's pace", crowd: 10_000, workers: 16, ...PERSON },
  { name: "crowd of 50,000, slow origin, a person's pace", crowd: 50_000, workers: 8, ...PERSON, serviceMs: 300 },
];

/** The origin's p99 over the run and in its first 10 s and minute; utilisation: busy workers ÷ workers while visitors waited. */
export type OpeningFigures = Awaited<ReturnType<typeof simulateOpening>>;

/** `done`: the requests of the visit answered so far. */
type Visitor = { readonly session: string; done: number };
type OriginRequest = { readonly visitor: Visitor; readonly sentAt: number; answered: boolean };

/** A binary heap of timed events, by time then by order of scheduling. */
class Agenda {
  private readonly heap: { at: number; seq: number; run: () => Promise<void> | void }[] = [];
  private seq = 0;

  at(at: number, run: () => Promise<void> | void): void {
    this.heap.push({ at, seq: this.seq++, run });
    for (let i = this.heap.length - 1, parent = (i - 1) >> 1; i > 0 && this.before(i, parent); i = parent, parent = (i - 1) >> 1) this.swap(i, parent);
  }

  next(): { at: number; run: () => Promise<void> | void } | undefined {
    const { heap } = this;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || !last) return top;
    heap[0] = last;
    for (let i = 0; ;) {
      const smallest = [2 * i + 1, 2 * i + 2].reduce((most, child) => (child < heap.length && this.before(child, most) ? child : most), i);
      if (smallest === i) return top;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  private swap(a: number, b: number): void {
    [this.heap[a], this.heap[b]] = [this.heap[b], this.heap[a]];
  }

  private before(a: number, b: number): boolean {
    const [x, y] = [this.heap[a], this.heap[b]];
    return x.at < y.at || (x.at === y.at && x.seq < y.seq);
  }
}

/** One scenario, to its end; `trace` gets the rate, the limit and the origin's load every step. */
export async function simulateOpening(scenario: OpeningScenario, seed = 1, trace?: (line: string) => void) {
  const random = mulberry32(seed);
  // Stalls on a stream of their own, so that the scenarios without them draw as before.
  const stalling = mulberry32(seed + 1);
  let stallAt = scenario.stalls ? -Math.log(1 - stalling()) * scenario.stalls.everyMs : Number.POSITIVE_INFINITY;
  /** How late an answer at `at` is measured: the rest of the stall under way, if any. */
  const stalledFor = (at: number): number => {
    const stalls = scenario.stalls;
    if (!stalls) return 0;
    while (stallAt + stalls.ms <= at) stallAt += -Math.log(1 - stalling()) * stalls.everyMs;
    return at >= stallAt ? stallAt + stalls.ms - at : 0;
  };
  const uniform = ([min, max]: readonly [number, number]) => min + (max - min) * random();
  const capacityPerSecond = (scenario.workers * 1000) / scenario.serviceMs;
  // What fills the origin: its capacity in visits, each admission lasting a session.
  const visitsPerMinute = (capacityPerSecond / scenario.perVisit) * 60;
  const ceilingPerMinute = Math.round(scenario.ceilingFactor * visitsPerMinute);
  const operatedPolicy: ReleasePolicy = {
    perMinute: ceilingPerMinute,
    activeLimit: Math.ceil((ceilingPerMinute * scenario.sessionSeconds) / 60),
    sessionMs: scenario.sessionSeconds * 1000,
    abandonMs: 3_600_000,
  };
  let now = 0;
  const clock: Clock = { now: () => now, every: () => () => {} };
  const line = new MemoryStore();
  const admission = new AdaptiveAdmission({
    operated: () => operatedPolicy,
    settings: { targetMs: scenario.targetMs, feedbackMs: scenario.feedbackSeconds * 1000, stepMs: STEP_MS, sessionMs: operatedPolicy.sessionMs },
    store: new MemoryAdmissionStore(),
    clock,
    log: pino({ level: 'silent' }),
    room: async () => {
      const stats = await line.stats(now);
      return { waiting: stats.waiting, paused: stats.paused, active: stats.active };
    },
    loopLagMs: () => 0,
  });
  const agenda = new Agenda();
  const end = scenario.runSeconds * 1000;
  const visitorsBySession = new Map<string, Visitor>();
  const latencies: number[] = [];
  const answerTimes: number[] = [];
  let timeouts = 0;
  let busyMs = 0;
  let busyWhileWaiting = 0;
  let lineEmptiedAt: number | null = null;
  let everWaited = false;

  // The origin: `workers` servers behind a first-come queue.
  const queue: OriginRequest[] = [];
  let head = 0;
  let busy = 0;
  let served = 0;
  const serve = () => {
    while (busy < scenario.workers && head < queue.length) {
      const request = queue[head++];
      // The gateway gave up on it (504): the origin drops it unserved, as the benchmark's does.
      if (request.answered) continue;
      busy++;
      const duration = scenario.serviceMs * (0.8 + 0.4 * random()) + (scenario.coldStartMs?.[served++] ?? 0);
      agenda.at(now + duration, () => {
        busy--;
        busyMs += duration;
        if (lineEmptiedAt === null) busyWhileWaiting += duration;
        if (!request.answered) {
          request.answered = true;
          const ms = now - request.sentAt + stalledFor(now);
          admission.signals.answered(ms, 200);
          latencies.push(ms);
          answerTimes.push(now);
          think(request.visitor);
        }
        serve();
      });
    }
    if (head > 4096 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
  };
  const forward = (visitor: Visitor) => {
    const request: OriginRequest = { visitor, sentAt: now, answered: false };
    admission.signals.forwarded();
    queue.push(request);
    agenda.at(now + COMMON.upstreamTimeoutMs, () => {
      if (request.answered) return;
      request.answered = true;
      timeouts++;
      admission.signals.failed(true);
      think(visitor);
    });
    serve();
  };
  // After an answer (or a 504), the next request of the visit a think time later.
  const think = (visitor: Visitor) => {
    visitor.done++;
    if (visitor.done < scenario.perVisit) agenda.at(now + uniform(scenario.thinkMs), () => request(visitor));
  };
  // A request at a protected path: admitted (the session's admission, or a free place under the
  // active limit while nobody waits) or held in line.
  const request = async (visitor: Visitor) => {
    if (await line.admit(visitor.session, now, admission.policy())) return forward(visitor);
    waitingNow++;
    everWaited = true;
    await line.hold(visitor.session, 0, { method: 'GET', uri: `/shop/${visitor.session}` }, now);
  };

  let waitingNow = 0;
  for (let i = 0; i < scenario.crowd; i++) {
    const visitor: Visitor = { session: `s${i}`, done: 0 };
    agenda.at((i / scenario.crowd) * scenario.arrivalSeconds * 1000, () => {
      if (scenario.lineCap !== undefined && waitingNow >= scenario.lineCap) return;
      visitorsBySession.set(visitor.session, visitor);
      return request(visitor);
    });
  }
  const releaseLoop = async () => {
    const { released } = await line.releaseDue(now, admission.policy());
    for (const entry of released) {
      const visitor = visitorsBySession.get(entry.sessionId);
      if (!visitor) continue;
      waitingNow--;
      // The release event, then the replay of the held request after a reaction time.
      agenda.at(now + uniform(COMMON.reactionMs), () => forward(visitor));
    }
    const stats = await line.stats(now);
    if (everWaited && stats.waiting === 0 && lineEmptiedAt === null) lineEmptiedAt = now;
    if (now + RELEASE_LOOP_MS < end) agenda.at(now + RELEASE_LOOP_MS, releaseLoop);
  };
  agenda.at(RELEASE_LOOP_MS, releaseLoop);
  const admissionStep = async () => {
    await admission.step();
    const view = admission.view();
    const stats = await line.stats(now);
    trace?.(
      `${(now / 1000).toFixed(0)} s: ${'signals' in view && view.signals ? `p50 ${view.signals.p50Ms}, p90 ${view.signals.p90Ms} of ${view.signals.requests}; ` : ''}${view.releasePerMinute}/min, limit ${view.activeLimit}, active ${stats.active}, waiting ${stats.waiting}, queue ${queue.length - head}, answers ${answerTimes.length}${'decision' in view && view.decision ? `, ${view.decision.reason}: ${view.decision.detail}` : ''}`,
    );
    if (now + STEP_MS < end) agenda.at(now + STEP_MS, admissionStep);
  };
  agenda.at(STEP_MS, admissionStep);

  for (let event = agenda.next(); event && event.at <= end; event = agenda.next()) {
    now = event.at;
    await event.run();
  }

  const waitedUntil = lineEmptiedAt ?? end;
  const windowFigures = ([from, to]: readonly [number, number]) => {
    const inside = latencies.filter((_, i) => answerTimes[i] >= from * 1000 && answerTimes[i] < to * 1000);
    return { goodput: round(inside.length / (to - from) / capacityPerSecond), p99Ms: Math.round(percentile(inside, 99)) };
  };
  const p99Ms = Math.round(percentile(latencies, 99));
  const utilisation = Math.round((busyWhileWaiting / (scenario.workers * waitedUntil)) * 1000) / 1000;
  const figures = {
    name: scenario.name,
    crowd: scenario.crowd,
    capacityPerSecond,
    targetMs: scenario.targetMs,
    p99Ms,
    p99FirstTenSecondsMs: windowFigures([0, 10]).p99Ms,
    p99FirstMinuteMs: windowFigures([0, 60]).p99Ms,
    utilisation,
    busySeconds: Math.round(busyMs / 100) / 10,
    answers: latencies.length,
    timeouts,
    lineEmptiedAtSeconds: lineEmptiedAt === null ? null : lineEmptiedAt / 1000,
    window: scenario.window && windowFigures(scenario.window),
  };
  const { window } = figures;
  const met = window
    ? window.goodput >= TARGETS.adaptiveGoodput && window.p99Ms <= scenario.targetMs
    : p99Ms <= scenario.targetMs && figures.p99FirstTenSecondsMs <= scenario.targetMs && timeouts === 0 && utilisation >= OPENING_GOAL.utilisation;
  return { ...figures, met };
}

/** Where a run that measured the opening keeps its figures, beside `latest.json` (`bench/results/`). */
export const OPENING_FILE = 'opening.json';

/** A burst's goal: the origin within its target from the first second, and at least half busy while visitors wait. */
export const OPENING_GOAL = { utilisation: 0.5 } as const;

export interface OpeningResult {
  readonly bursts: readonly OpeningFigures[];
  readonly startedCold: OpeningFigures;
  readonly seed: number;
}

/** Every burst, then the admission benchmark's room started cold. */
export async function measureOpening(seed = 1): Promise<OpeningResult> {
  const bursts: OpeningFigures[] = [];
  for (const scenario of OPENING_SCENARIOS) bursts.push(await simulateOpening(scenario, seed));
  return { bursts, startedCold: await simulateOpening(STARTED_COLD, seed), seed };
}

/** The bench's checks: every burst meets the goal, and the room started cold its steady goodput. */
export function openingChecks({ bursts, startedCold: cold }: OpeningResult): TargetCheck[] {
  return [
    ...bursts.map((burst) =>
      check(
        `opening burst, ${burst.name}: the origin's p99 over the run and in its first 10 s, its utilisation while visitors waited`,
        `p99 ≤ ${burst.targetMs} ms, no 504, utilisation ≥ ${OPENING_GOAL.utilisation}`,
        `p99 ${burst.p99Ms} ms (first 10 s ${burst.p99FirstTenSecondsMs} ms), ${burst.timeouts} 504s, utilisation ${burst.utilisation.toFixed(2)}`,
        burst.met,
      ),
    ),
    check(
      `opening: ${cold.name}, goodput in its steady window`,
      `≥ ${TARGETS.adaptiveGoodput}, p99 ≤ ${cold.targetMs} ms`,
      `${cold.window?.goodput.toFixed(2)}, p99 ${cold.window?.p99Ms} ms`,
      cold.met,
    ),
  ];
}

/** The figures as `docs/performance.md` shows them (`bench/performance-figures.ts`). */
export function openingMarkdown(result: OpeningResult): string {
  const rows = result.bursts.map((r) => {
    const emptied = r.lineEmptiedAtSeconds === null ? 'no' : `at ${r.lineEmptiedAtSeconds} s`;
    return `| ${r.name} | ${r.crowd.toLocaleString('en-US')} | ${r.capacityPerSecond.toFixed(0)} | ${r.targetMs} | ${r.p99Ms} (${(r.p99Ms / r.targetMs).toFixed(2)}×) | ${r.p99FirstTenSecondsMs} | ${r.p99FirstMinuteMs} | ${r.utilisation.toFixed(2)} | ${r.timeouts} | ${emptied} | ${r.met ? 'met' : '**missed**'} |`;
  });
  const cold = result.startedCold;
  return [
    '| burst | crowd | origin (req/s) | target (ms) | p99 over the run (ms, ÷ target) | p99, first 10 s (ms) | p99, first minute (ms) | utilisation while visitors waited | 504s | line emptied | goal |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
    ...rows,
    '',
    `Beside them, ${cold.name} (its steady window, ${STARTED_COLD.window?.[0]}–${STARTED_COLD.window?.[1]} s): goodput ${cold.window?.goodput.toFixed(2)}, ` +
      `the origin's p99 ${cold.window?.p99Ms} ms (${cold.met ? 'met' : '**missed**'}: ≥ ${TARGETS.adaptiveGoodput}, p99 ≤ ${cold.targetMs} ms). Seed ${result.seed}.`,
  ].join('\n');
}

// `node --import tsx bench/admission/opening.ts` prints every scenario's table; `TRACE=1` and a part
// of a scenario's name print that scenario's decisions, step by step.
if (require.main === module) {
  const only = process.argv.slice(2).find((arg) => !arg.startsWith('--'));
  void (async () => {
    if (only) {
      const trace = process.env.TRACE ? (line: string) => console.log(line) : undefined;
      for (const scenario of [...OPENING_SCENARIOS, STARTED_COLD].filter((one) => one.name.includes(only)))
        console.log(await simulateOpening(scenario, 1, trace));
      return;
    }
    const result = await measureOpening();
    console.log(openingMarkdown(result));
    if ([...result.bursts, result.startedCold].some((figures) => !figures.met)) process.exitCode = 1;
  })();
}
