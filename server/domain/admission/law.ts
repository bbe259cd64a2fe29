import type { SignalSummary } from './signals';

/**
 * The control law of adaptive admission: TCP Reno's, applied to the release rate instead of a
 * congestion window, with the origin's latency against a target as the congestion signal. Pure:
 * the state in, the state out, time only as `now`. `docs/adaptive-admission.md` says why this
 * law and these constants (they were chosen on a model of the origin, then checked by the bench).
 *
 * - **The opening.** Before any congestion, the sessions admitted at once are what is paced: ten
 *   at first (`START_SESSIONS`), then as many as bring a quarter more load than the origin
 *   answered within the band (`loadGrowth`), each weighed by the requests a second one admitted
 *   session brought; past the load at which the p99 left that band, a quarter a feedback time.
 *   The rate lets that limit fill within two steps. A visitor admitted cannot be taken back, and
 *   ceilings may be far too high: the crowd of the first seconds is let in as the origin shows it
 *   can take it. At the first cut the rate is cut from the one that keeps the sessions admitted,
 *   and from then on the rate rules, as below. Latency alone cuts the opening only from
 *   `openingSamples` answers with the p90 past the band too, not on its slowest few; after its
 *   cut, the rate grows with the answers back to the rate cut to (`regrow`), not additively.
 * - **Slow start.** Below `threshold` the rate doubles each feedback time, in steps.
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
  /**
   * Each window the origin answered within the band, the visitors admitted may bring up to this
   * much more load than it answered: a slow start clocked by the origin's answers, as TCP's is
   * by its acknowledgements. Visits cannot be taken back, so a step past the knee loads the
   * origin for a visit: the step is small, and taken again only once its load has shown.
   */
  loadGrowth: 0.25,
  /** In slow start, the rate lets the active limit fill within this many decision steps. */
  fillSteps: 2,
  /**
   * In the opening, answers needed before latency alone may cut, and then only with the p90 past
   * the band too. With a few sessions let in, a window holds a few dozen answers and its p99 is
   * the slowest of them: one slow first answer (a server just started), or the few a late event
   * loop delays, would end the opening at a few sessions, leaving the rate to climb back
   * additively for minutes. An origin at its capacity slows most answers. Otherwise the growth
   * holds while the slowest are past the band; errors and timeouts cut as ever.
   */
  openingSamples: 100,
};

export type Tuning = typeof TUNING;

/** The rate starts at this share of its ceiling, at most (and the sessions at `START_SESSIONS`). */
export const START_SHARE = 0.1;
/**
 * Sessions admitted at once before the origin has answered any: whatever the ceilings, a crowd
 * at the opening is let in this many at first (TCP's initial window), then as the origin answers.
 */
export const START_SESSIONS = 10;
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
  /**
   * Requests a second the admitted visitors may bring: what the origin was seen to answer within
   * the band, and `loadGrowth` more; cut with the rate. Null while unknown.
   */
  readonly loadCap?: number | null;
  /**
   * The load the origin answered when its p99 last left the band it grows in (a hold or a cut):
   * its knee as seen. Above it the load cap grows by `loadGrowth` a feedback time, not a window.
   */
  readonly loadKnee?: number | null;
  /** Requests a second one admitted session brought in the last window: the weight of a visitor. */
  readonly perSession?: number | null;
  /** Sessions admitted at once, at most: `loadCap ÷ perSession`, or `START_SESSIONS`; null: none. */
  readonly activeCap?: number | null;
  /**
   * Set by the cut that ends the opening: the load the origin may then bring (the cut share of
   * what it answered) and the rate cut to. Until the load answered is back to it, the rate grows
   * with the answers towards that rate, whatever later cuts did, not additively from them.
   */
  readonly regrow?: { readonly load: number; readonly perMinute: number } | null;
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
  /** Sessions admitted now: what the origin's load is weighed by. Unknown: the load is not weighed. */
  readonly active?: number;
}

/**
 * Where a controller starts, in slow start: `START_SESSIONS` admitted at once, and as many let in
 * each feedback time (at most a tenth of the ceiling): safe whatever the ceilings, which may be
 * far too high.
 */
export function initialState(settings: LawSettings): ControllerState {
  const activeCap = Math.min(START_SESSIONS, settings.ceilingActive);
  return {
    // Ten let in a feedback time (or a session, if shorter): the time their load takes to show.
    perMinute: clampRate(Math.min(settings.ceilingPerMinute * START_SHARE, (activeCap * 60_000) / Math.min(settings.sessionMs, settings.feedbackMs)), settings),
    threshold: null,
    episodeStart: null,
    lastCongestionAt: null,
    lastCutAt: null,
    severityAtCut: null,
    loadCap: null,
    loadKnee: null,
    perSession: null,
    activeCap,
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

/** The active limit a controller sets: its rate's (`activeLimitFor`), within the load its admitted may bring. */
export function activeLimitOf(state: ControllerState, settings: Pick<LawSettings, 'sessionMs' | 'ceilingActive'>): number {
  return Math.min(activeLimitFor(state.perMinute, settings), Math.max(1, state.activeCap ?? Number.POSITIVE_INFINITY));
}

/** The rate that keeps `sessions` admitted at once, each for a session. */
function keepingRate(sessions: number, settings: Pick<LawSettings, 'sessionMs'>): number {
  return (sessions * 60_000) / settings.sessionMs;
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
  const opening = state.threshold === null && state.activeCap != null && room.active !== undefined;
  // In the opening, latency cuts only when the bulk of the answers is slow too (the p90 past the
  // band): the origin's queue lengthens most answers, a late event loop or a cold start a few.
  const enoughToCut = enough && (!opening || (signals.requests >= tuning.openingSamples && signals.p90Ms >= tuning.growBelow * target));
  const erring = failed >= tuning.minErrors && errorShare > tuning.errorShare;
  const severe = erring || (enoughToCut && signals.p99Ms > tuning.severeLatency * target);
  const congested = severe || (enoughToCut && signals.p99Ms > tuning.backOffAbove * target);
  // The load the origin answered in the window, and what one admitted session brought to it.
  const seconds = Math.max(settings.stepMs, signals.to - signals.from) / 1000;
  const answered = signals.requests / seconds;
  const perSession = room.active !== undefined && room.active > 0 && signals.sent > 0 ? signals.sent / seconds / room.active : (state.perSession ?? null);
  const weighed = (next: ControllerState, loadCap: number | null): ControllerState => ({
    ...next,
    loadCap,
    perSession,
    // Without the count of sessions admitted, nothing to weigh the load by: no limit from it.
    // After the first congestion the rate that keeps the origin busy is known, and the rate law
    // rules: a limit weighed by visitors whose pace varies from window to window only adds noise.
    activeCap:
      room.active === undefined || next.threshold !== null
        ? null
        : loadCap === null || perSession === null
          ? (next.activeCap ?? null)
          : Math.min(settings.ceilingActive, Math.max(1, Math.ceil(loadCap / perSession))),
  });
  const p99 = `p99 ${signals.p99Ms} ms`;
  const share = (value: number) => `${Math.round(value * 100)} % of the ${target} ms target`;
  const decision = (action: DecisionAction, reason: DecisionReason, detail: string, next: ControllerState) => ({
    state: next,
    decision: { at: now, action, reason, detail, perMinute: round(next.perMinute), activeLimit: activeLimitOf(next, settings) },
  });

  if (congested) {
    const newEpisode = state.lastCongestionAt === null || now - state.lastCongestionAt > tuning.episodeGap * settings.feedbackMs;
    // The rate in force as far as the origin's load goes: in slow start the active limit binds
    // first, and the rate that keeps that many sessions is what the origin took.
    const inForce = Math.min(state.perMinute, state.activeCap == null ? Number.POSITIVE_INFINITY : keepingRate(state.activeCap, settings));
    const episodeStart = newEpisode ? inForce : (state.episodeStart ?? inForce);
    const loadKnee = answered > 0 ? answered : (state.loadKnee ?? null);
    const marked = weighed({ ...state, lastCongestionAt: now, episodeStart, loadKnee }, state.loadCap ?? null);
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
    const perMinute = clampRate(inForce * cut, settings);
    const threshold = Math.max(perMinute, clampRate(episodeStart * tuning.severeCut, settings));
    // The admitted may bring the cut share of what the origin answered: no one more is let in
    // until enough visits have ended.
    const taken = answered > 0 ? answered : (state.loadCap ?? null);
    const loadCap = taken === null ? null : Math.min(taken, state.loadCap ?? Number.POSITIVE_INFINITY) * cut;
    // The cut that ends the opening: the load and the rate to grow back to with the answers.
    const regrow = opening && loadCap !== null && loadCap > 0 ? { regrow: { load: loadCap, perMinute } } : {};
    return decision(
      'decrease',
      why.reason,
      `${why.detail}: rate × ${cut}`,
      weighed({ ...marked, perMinute, threshold, lastCutAt: now, severityAtCut: severity, ...regrow }, loadCap),
    );
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
    // Near the target: the admitted may bring what the origin answers, no more.
    if (enough && signals.p99Ms > tuning.backOffAbove * target) {
      // Over the band, but from too few answers, or only the slowest, to end the opening.
      return decision(
        'hold',
        'few_samples',
        `${p99} from ${signals.requests} answers, p90 ${signals.p90Ms} ms: in the opening, latency alone cuts from ${tuning.openingSamples} answers with the p90 over ${share(tuning.growBelow)}`,
        weighed(state, state.loadCap ?? null),
      );
    }
    return enough
      ? decision(
          'hold',
          'latency_near_target',
          `${p99}, between ${share(tuning.growBelow)} and ${share(tuning.backOffAbove)}`,
          weighed({ ...state, loadKnee: answered }, Math.max(state.loadCap ?? 0, answered)),
        )
      : decision('hold', 'few_samples', `${p99} from only ${signals.requests} answers`, weighed(state, state.loadCap ?? null));
  }
  // Answered within the band: the admitted may bring a step more than the origin answered.
  // Past the knee the origin showed, a step a feedback time: what it adds shows before the next.
  const knee = state.loadKnee ?? Number.POSITIVE_INFINITY;
  const beyond = answered * (1 + (tuning.loadGrowth * settings.stepMs) / settings.feedbackMs);
  const allowed = answered < knee ? Math.max(Math.min(answered * (1 + tuning.loadGrowth), knee), beyond) : beyond;
  const loadCap = signals.requests === 0 ? (state.loadCap ?? null) : Math.max(state.loadCap ?? 0, allowed);
  if (state.perMinute >= settings.ceilingPerMinute) {
    return decision('hold', 'at_ceiling', `${p99}; the rate is at its ceiling (RELEASE_PER_MINUTE, or the operator's limit)`, weighed(state, loadCap));
  }
  const step = settings.stepMs / settings.feedbackMs;
  const starting = state.threshold === null || state.perMinute < state.threshold;
  const calm = state.lastCongestionAt === null || now - state.lastCongestionAt >= tuning.probeAfter * settings.feedbackMs;
  // How far the p99 is under the band, 0 at its edge to 1 at no latency: the probe's pace.
  const headroom = Math.max(0, 1 - signals.p99Ms / (tuning.growBelow * target));
  const additive = state.perMinute + tuning.additiveGrowth * (state.threshold ?? 0) * step;
  const probe = calm ? tuning.probeGrowth * headroom : 0;
  const probed = state.perMinute * (1 + probe) ** step;
  const next = weighed(state, loadCap);
  // Before any congestion the active limit, which follows the answers, paces the opening: the
  // rate lets it fill within `fillSteps` steps.
  const filling = state.threshold === null && next.activeCap != null ? (next.activeCap * 60_000) / (tuning.fillSteps * settings.stepMs) : 0;
  const ruled = starting ? Math.min(state.perMinute * 2 ** step, state.threshold ?? Number.POSITIVE_INFINITY) : Math.max(additive, probed);
  // After the opening's cut, and until the load is back to what it allowed: the rate that brings
  // `loadGrowth` more than the origin answered, at most the rate cut to. Later cuts (the load
  // admitted before the first still arriving) may leave the rate far under what the origin took,
  // and additive steps from there would take minutes to get back.
  const regrow = state.regrow ?? null;
  const regrowing = regrow !== null && answered < regrow.load;
  const regrown = regrowing ? regrow.perMinute * Math.min(1, ((1 + tuning.loadGrowth) * answered) / regrow.load) : 0;
  const grown = Math.max(ruled, regrown);
  const perMinute = clampRate(Math.max(grown, filling, state.perMinute), settings);
  const how =
    regrown > ruled
      ? `growing with the answers back to the ${round(regrow?.load ?? 0)} requests a second allowed at the opening's cut`
      : starting
        ? `doubling each feedback time up to ${state.threshold === null ? 'the first congestion' : `${round(state.threshold)} a minute`}`
        : probed > additive
          ? `no congestion for ${tuning.probeAfter} feedback times: probing, + ${Math.round(probe * 100)} % each feedback time`
          : `+ ${Math.round(tuning.additiveGrowth * 100)} % of ${round(state.threshold as number)} a minute each feedback time`;
  return decision('increase', starting || regrown > ruled ? 'starting' : 'latency_low', `${p99}, under ${share(tuning.growBelow)}: ${how}`, {
    ...next,
    perMinute,
    regrow: regrowing ? regrow : null,
  });
}

function clampRate(perMinute: number, settings: Pick<LawSettings, 'ceilingPerMinute'>): number {
  return Math.min(settings.ceilingPerMinute, Math.max(MIN_PER_MINUTE, perMinute));
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
