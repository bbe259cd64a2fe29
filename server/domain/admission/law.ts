import type { SignalSummary } from './signals';

/**
 * The control law of adaptive admission: TCP Reno's, applied to the release rate instead of a
 * congestion window, with the origin's latency against a target as the congestion signal. Pure:
 * the state in, the state out, time only as `now`. `docs/adaptive-admission.md` says why this
 * law and these constants (they were chosen on a model of the origin, then checked by the bench).
 *
 * - **Slow start.** Below `threshold` (and before any congestion) the rate doubles each feedback
 *   time, in steps.
 * - **Congestion avoidance.** Above it, the rate grows by a tenth of the threshold each
 *   feedback time: additive increase. After two feedback times with no congestion it probes as a
 *   gradient limiter does: it grows by up to half of itself each feedback time, in proportion to
 *   how far the p99 is under the band (at half the band's edge, a quarter), if that is more. The
 *   limit found before may be gone (a burst caused it, or the origin grew), and additive steps
 *   from far below would take many feedback times to find the new one; near the band the probe
 *   slows to nothing, so that what a step adds shows before the rate has grown much more.
 * - **Hold band.** It grows only while the p99 is under 55 % of the target, and holds between
 *   55 and 70 %: the origin's queue fluctuates, and the room aims below the target so that the
 *   p99 over minutes stays within it.
 * - **Multiplicative decrease.** Above 70 % of the target the rate is cut by a tenth; above twice
 *   the target, or with more than 1 % of errors and timeouts, by half. At most one cut each half
 *   feedback time, and then only if things are not getting better; within a feedback time of a
 *   cut, only if they are markedly worse (twice as bad): the visitors already admitted keep the
 *   origin busy for a visit whatever the room does, and cutting again while the last cut takes
 *   effect would cut twice for one cause.
 * - **Episodes.** After a cut the threshold is the rate cut to, but never below half the rate the
 *   congestion began at: a run of cuts while the admitted load drains does not leave the room
 *   creeping back from nothing.
 * - **In use only.** The rate grows only while visitors wait (and the room is not paused): a rate
 *   nobody uses says nothing of the origin, and must not grow into a burst when a crowd comes.
 */

/**
 * The law's constants, in one object so that the model runs that chose them could try others
 * (`decide`'s last argument); the server always uses these.
 */
export const TUNING = {
  /** The rate grows while the p99 is under this share of the target… */
  growBelow: 0.55,
  /** …holds up to this share, and is cut above it. */
  backOffAbove: 0.7,
  /** Above this many times the target, the cut is the severe one. */
  severeLatency: 2,
  /** A share of errors and timeouts above this (and at least `minErrors`) is severe congestion. */
  errorShare: 0.01,
  minErrors: 2,
  /** The cuts. */
  mildCut: 0.9,
  severeCut: 0.5,
  /** Answers needed before latency alone may cut the rate: fewer say too little. */
  minSamples: 20,
  /** Above the threshold, the rate grows by this share of it each feedback time. */
  additiveGrowth: 0.1,
  /**
   * Calm this many feedback times, the rate grows by up to `probeGrowth` of itself each feedback
   * time, in proportion to how far the p99 is under `growBelow` of the target.
   */
  probeAfter: 2,
  probeGrowth: 0.5,
  /** At most one cut each this share of the feedback time. */
  cutSpacing: 0.5,
  /** A cut is repeated only if the congestion is at least this share of what it was at the last cut. */
  notBetter: 0.9,
  /**
   * Within this many feedback times of a cut, another cut only if the congestion is at least
   * `markedlyWorse` times what it was at it: the load admitted before the cut still grows the
   * latency for a visit, and cutting again for that leaves the rate far under the origin's capacity.
   */
  awaitCut: 1,
  markedlyWorse: 2,
  /** A congestion this many feedback times after the last one starts a new episode. */
  episodeGap: 2,
};

export type Tuning = typeof TUNING;

/** The rate starts at this share of its ceiling. */
export const START_SHARE = 0.1;
/** Sessions admitted at once: what the rate fills in a session, and a quarter more. */
export const ACTIVE_HEADROOM = 1.25;
/** The lowest rate the controller sets (a minute), so that it always probes again. */
export const MIN_PER_MINUTE = 1;

export interface LawSettings {
  /** The p99 latency the origin's answers should stay under (ms). */
  readonly targetMs: number;
  /** How long a change of rate takes to show in full in the origin's load (ms). */
  readonly feedbackMs: number;
  /** Time between two decisions (ms). */
  readonly stepMs: number;
  /** RELEASE_PER_MINUTE and ACTIVE_LIMIT: the most the controller may set. */
  readonly ceilingPerMinute: number;
  readonly ceilingActive: number;
  /** How long an admitted session stays admitted (ms). */
  readonly sessionMs: number;
}

export interface ControllerState {
  /** Releases a minute now; a real number, the release step's token bucket takes fractions. */
  readonly perMinute: number;
  /** Slow start below, additive increase above; null before any congestion. */
  readonly threshold: number | null;
  /** The rate when the current congestion episode began. */
  readonly episodeStart: number | null;
  readonly lastCongestionAt: number | null;
  readonly lastCutAt: number | null;
  /** How bad things were at the last cut (`severityOf`), to tell whether they are getting better. */
  readonly severityAtCut: number | null;
}

export type DecisionAction = 'increase' | 'decrease' | 'hold';

/** Why the controller did what it did; `detail` says it in words with the figures. */
export type DecisionReason =
  | 'starting'
  | 'latency_low'
  | 'latency_near_target'
  | 'latency_high'
  | 'latency_severe'
  | 'errors'
  | 'cut_recently'
  | 'recovering'
  | 'not_in_use'
  | 'few_samples'
  | 'gateway_busy'
  | 'no_answers'
  | 'at_ceiling'
  | 'pinned'
  | 'unpinned';

export interface Decision {
  /** Clock time of the decision (ms). */
  readonly at: number;
  readonly action: DecisionAction;
  readonly reason: DecisionReason;
  readonly detail: string;
  /** The rate and the limit it set (ms clock, whole releases a minute rounded for reading). */
  readonly perMinute: number;
  readonly activeLimit: number;
}

/** What the room is doing besides the origin: growth needs visitors waiting and no pause. */
export interface RoomContext {
  readonly now: number;
  readonly waiting: number;
  readonly paused: boolean;
}

/** Where a controller starts: a tenth of the ceiling, in slow start. */
export function initialState(settings: LawSettings): ControllerState {
  return {
    perMinute: clampRate(settings.ceilingPerMinute * START_SHARE, settings),
    threshold: null,
    episodeStart: null,
    lastCongestionAt: null,
    lastCutAt: null,
    severityAtCut: null,
  };
}

/** A controller that goes on from a rate the operator set (unpinning): no slow start above it. */
export function stateFrom(perMinute: number, settings: LawSettings): ControllerState {
  const rate = clampRate(perMinute, settings);
  return { perMinute: rate, threshold: rate, episodeStart: null, lastCongestionAt: null, lastCutAt: null, severityAtCut: null };
}

/** Sessions admitted at once for a rate: what it fills in a session, a quarter more, within the ceiling. */
export function activeLimitFor(perMinute: number, settings: Pick<LawSettings, 'sessionMs' | 'ceilingActive'>): number {
  const filled = Math.ceil(((perMinute * settings.sessionMs) / 60_000) * ACTIVE_HEADROOM);
  return Math.min(settings.ceilingActive, Math.max(1, filled));
}

/** One step of the law: the signals of the last window and the room's state in, the next state and why out. */
export function decide(
  state: ControllerState,
  signals: SignalSummary,
  room: RoomContext,
  settings: LawSettings,
  tuning: Tuning = TUNING,
): { readonly state: ControllerState; readonly decision: Decision } {
  const { now } = room;
  const target = settings.targetMs;
  const failed = signals.errors + signals.timeouts + signals.unreachable;
  const attempts = signals.requests + signals.timeouts + signals.unreachable;
  const errorShare = attempts === 0 ? 0 : failed / attempts;
  // Latency counts only when no instance left its latencies out (`gateway_busy`, below).
  const enough = signals.requests >= tuning.minSamples && signals.lagged === 0;
  const erring = failed >= tuning.minErrors && errorShare > tuning.errorShare;
  const severe = erring || (enough && signals.p99Ms > tuning.severeLatency * target);
  const congested = severe || (enough && signals.p99Ms > tuning.backOffAbove * target);
  const p99 = `p99 ${signals.p99Ms} ms`;
  const share = (value: number) => `${Math.round(value * 100)} % of the ${target} ms target`;
  const decision = (action: DecisionAction, reason: DecisionReason, detail: string, next: ControllerState) => ({
    state: next,
    decision: { at: now, action, reason, detail, perMinute: round(next.perMinute), activeLimit: activeLimitFor(next.perMinute, settings) },
  });

  if (congested) {
    const newEpisode = state.lastCongestionAt === null || now - state.lastCongestionAt > tuning.episodeGap * settings.feedbackMs;
    const episodeStart = newEpisode ? state.perMinute : (state.episodeStart ?? state.perMinute);
    const marked = { ...state, lastCongestionAt: now, episodeStart };
    const why: { reason: DecisionReason; detail: string } = erring
      ? {
          reason: 'errors',
          detail: `${failed} of ${attempts} requests failed (${signals.errors} 5xx, ${signals.timeouts} timeouts, ${signals.unreachable} unreachable)`,
        }
      : severe
        ? { reason: 'latency_severe', detail: `${p99}, over twice the ${target} ms target` }
        : { reason: 'latency_high', detail: `${p99}, over ${share(tuning.backOffAbove)}` };
    const severity = Math.max(signals.p99Ms / target, errorShare / tuning.errorShare);
    if (state.lastCutAt !== null && !newEpisode) {
      const since = Math.round((now - state.lastCutAt) / 1000);
      if (now - state.lastCutAt < tuning.cutSpacing * settings.feedbackMs) {
        return decision('hold', 'cut_recently', `${why.detail}; the last cut, ${since} s ago, has yet to show in full`, marked);
      }
      if (state.severityAtCut !== null && severity < tuning.notBetter * state.severityAtCut) {
        return decision('hold', 'recovering', `${why.detail}, but better than at the last cut, ${since} s ago: it is taking effect`, marked);
      }
      // The visitors admitted before the cut load the origin for a visit yet: until the cut has
      // shown in full, a congestion no worse than at the cut is still the same cause.
      if (
        state.severityAtCut !== null &&
        now - state.lastCutAt < tuning.awaitCut * settings.feedbackMs &&
        severity < tuning.markedlyWorse * state.severityAtCut
      ) {
        return decision(
          'hold',
          'cut_recently',
          `${why.detail}; the last cut, ${since} s ago, takes a feedback time to show in full, and things are not markedly worse than at it`,
          marked,
        );
      }
    }
    const cut = severe ? tuning.severeCut : tuning.mildCut;
    const perMinute = clampRate(state.perMinute * cut, settings);
    const threshold = Math.max(perMinute, clampRate(episodeStart * tuning.severeCut, settings));
    return decision('decrease', why.reason, `${why.detail}: rate × ${cut}`, {
      ...marked,
      perMinute,
      threshold,
      lastCutAt: now,
      severityAtCut: severity,
    });
  }
  if (signals.requests === 0 && failed === 0 && signals.sent > 0) {
    return decision('hold', 'no_answers', `${signals.sent} requests went to the origin and none has been answered yet`, state);
  }
  if (signals.lagged > 0) {
    return decision('hold', 'gateway_busy', `the gateway's own event loop lagged in ${signals.lagged} steps of the window: its latencies were left out`, state);
  }
  // Not congested: the next congestion is judged afresh, not against the last cut's.
  if (state.severityAtCut !== null) state = { ...state, severityAtCut: null };
  if (room.paused || room.waiting === 0) {
    return decision('hold', 'not_in_use', room.paused ? 'the release loop is paused' : 'nobody waits: the rate is not in use', state);
  }
  if (signals.p99Ms >= tuning.growBelow * target) {
    return enough
      ? decision('hold', 'latency_near_target', `${p99}, between ${share(tuning.growBelow)} and ${share(tuning.backOffAbove)}`, state)
      : decision('hold', 'few_samples', `${p99} from only ${signals.requests} answers`, state);
  }
  if (state.perMinute >= settings.ceilingPerMinute) {
    return decision('hold', 'at_ceiling', `${p99}; the rate is at its ceiling (RELEASE_PER_MINUTE, or the operator's limit)`, state);
  }
  const step = settings.stepMs / settings.feedbackMs;
  const starting = state.threshold === null || state.perMinute < state.threshold;
  const calm = state.lastCongestionAt === null || now - state.lastCongestionAt >= tuning.probeAfter * settings.feedbackMs;
  // How far the p99 is under the band, 0 at its edge to 1 at no latency: the probe's pace.
  const headroom = Math.max(0, 1 - signals.p99Ms / (tuning.growBelow * target));
  const additive = state.perMinute + tuning.additiveGrowth * (state.threshold ?? 0) * step;
  const probe = calm ? tuning.probeGrowth * headroom : 0;
  const probed = state.perMinute * (1 + probe) ** step;
  const grown = starting ? Math.min(state.perMinute * 2 ** step, state.threshold ?? Number.POSITIVE_INFINITY) : Math.max(additive, probed);
  const perMinute = clampRate(Math.max(grown, state.perMinute), settings);
  const how = starting
    ? `doubling each feedback time up to ${state.threshold === null ? 'the first congestion' : `${round(state.threshold)} a minute`}`
    : probed > additive
      ? `no congestion for ${tuning.probeAfter} feedback times: probing, + ${Math.round(probe * 100)} % each feedback time`
      : `+ ${Math.round(tuning.additiveGrowth * 100)} % of ${round(state.threshold as number)} a minute each feedback time`;
  return decision('increase', starting ? 'starting' : 'latency_low', `${p99}, under ${share(tuning.growBelow)}: ${how}`, { ...state, perMinute });
}

function clampRate(perMinute: number, settings: Pick<LawSettings, 'ceilingPerMinute'>): number {
  return Math.min(settings.ceilingPerMinute, Math.max(MIN_PER_MINUTE, perMinute));
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
