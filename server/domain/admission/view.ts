import type { AdmissionState } from '../console/samples';
import type { ReleasePolicy } from '../../store/types';
import type { DecisionAction, DecisionReason, LawSettings } from './law';
import type { AdmissionRecord } from './record';
import type { SignalSummary } from './signals';

/**
 * What `GET /admin/admission` answers for a room: the rate and limit in force and why. Times are
 * ISO 8601; rates are releases a minute (one decimal).
 */
export type AdmissionView = FixedAdmissionView | AdaptiveAdmissionView;

export interface FixedAdmissionView {
  readonly mode: 'fixed';
  readonly releasePerMinute: number;
  readonly activeLimit: number;
}

export interface AdaptiveAdmissionView {
  readonly mode: 'adaptive';
  /** In force now: the controller's, or the pin's. */
  readonly releasePerMinute: number;
  readonly activeLimit: number;
  /** RELEASE_PER_MINUTE and ACTIVE_LIMIT: the most the controller may set. */
  readonly ceilings: { readonly releasePerMinute: number; readonly activeLimit: number };
  /** ORIGIN_LATENCY_TARGET_MS: the p99 the origin's answers should stay under. */
  readonly originLatencyTargetMs: number;
  /** ADMISSION_FEEDBACK_SECONDS. */
  readonly feedbackSeconds: number;
  /** How the controller grows now: doubling (slow start) below `threshold`, additively above. */
  readonly controller: {
    readonly phase: 'slow_start' | 'additive_increase';
    readonly releasePerMinute: number;
    readonly threshold: number | null;
  };
  /** Set by hand (`POST /admin/admission/pin`), or null. */
  readonly pinned: { readonly releasePerMinute: number; readonly activeLimit: number; readonly at: string } | null;
  /** The origin's answers to admitted requests in the window of the last decision, every instance together. */
  readonly signals: (Omit<SignalSummary, 'from' | 'to'> & { readonly from: string; readonly to: string }) | null;
  /** The last decision, or null before the first. */
  readonly decision: {
    readonly at: string;
    readonly action: DecisionAction;
    readonly reason: DecisionReason;
    readonly detail: string;
    readonly releasePerMinute: number;
    readonly activeLimit: number;
  } | null;
}

const iso = (ms: number) => new Date(ms).toISOString();
const tenth = (value: number) => Math.round(value * 10) / 10;

export function viewOf(record: AdmissionRecord, policy: ReleasePolicy, settings: LawSettings): AdaptiveAdmissionView {
  const { controller, pinned, signals, decision } = record;
  return {
    mode: 'adaptive',
    releasePerMinute: tenth(policy.perMinute),
    activeLimit: policy.activeLimit,
    ceilings: { releasePerMinute: settings.ceilingPerMinute, activeLimit: settings.ceilingActive },
    originLatencyTargetMs: settings.targetMs,
    feedbackSeconds: settings.feedbackMs / 1000,
    controller: {
      phase: controller.threshold === null || controller.perMinute < controller.threshold ? 'slow_start' : 'additive_increase',
      releasePerMinute: tenth(controller.perMinute),
      threshold: controller.threshold === null ? null : tenth(controller.threshold),
    },
    pinned: pinned && { releasePerMinute: pinned.perMinute, activeLimit: pinned.activeLimit, at: iso(pinned.at) },
    signals: signals && { ...signals, from: iso(signals.from), to: iso(signals.to) },
    decision: decision && {
      at: iso(decision.at),
      action: decision.action,
      reason: decision.reason,
      detail: decision.detail,
      releasePerMinute: decision.perMinute,
      activeLimit: decision.activeLimit,
    },
  };
}

/**
 * What the operator console's samples carry of a room's admission: for an adaptive room, the rate
 * and limit in force and the last decision in words; nothing for a fixed one, whose rate and limit
 * the sample already has.
 */
export function consoleStateOf(view: AdmissionView): AdmissionState | undefined {
  if (view.mode === 'fixed') return undefined;
  return {
    mode: view.pinned ? 'pinned' : 'adaptive',
    perMinute: view.releasePerMinute,
    activeLimit: view.activeLimit,
    ...(view.decision ? { reason: view.decision.detail } : {}),
  };
}

const INTEGER = { type: 'integer' } as const;
const NUMBER = { type: 'number' } as const;
const STRING = { type: 'string' } as const;

/** `AdmissionView` as a JSON schema, for the admin routes' answers and the OpenAPI document. */
export const ADMISSION_VIEW_SCHEMA = {
  type: 'object',
  required: ['mode', 'releasePerMinute', 'activeLimit'],
  properties: {
    mode: { type: 'string', enum: ['fixed', 'adaptive'], description: 'ADMISSION.' },
    releasePerMinute: { type: 'number', description: 'Releases a minute in force (one decimal with adaptive admission).' },
    activeLimit: { type: 'integer', description: 'Sessions admitted at once, in force.' },
    ceilings: {
      type: 'object',
      description: "Adaptive: the most the controller may set (RELEASE_PER_MINUTE and ACTIVE_LIMIT, or the operator's limits).",
      properties: { releasePerMinute: NUMBER, activeLimit: INTEGER },
    },
    originLatencyTargetMs: { type: 'integer', description: "Adaptive: ORIGIN_LATENCY_TARGET_MS, the p99 the origin's answers should stay under." },
    feedbackSeconds: { type: 'number', description: 'Adaptive: ADMISSION_FEEDBACK_SECONDS.' },
    controller: {
      type: 'object',
      description: "Adaptive: the controller's own rate (in force unless pinned), and how it grows.",
      properties: {
        phase: { type: 'string', enum: ['slow_start', 'additive_increase'] },
        releasePerMinute: NUMBER,
        threshold: { type: 'number', nullable: true, description: 'Slow start below, additive increase above; null before any congestion.' },
      },
    },
    pinned: {
      type: 'object',
      nullable: true,
      description: 'Adaptive: the rate and limit pinned by hand, or null.',
      properties: { releasePerMinute: NUMBER, activeLimit: INTEGER, at: STRING },
    },
    signals: {
      type: 'object',
      nullable: true,
      description: "Adaptive: the origin's answers to admitted requests in the window of the last decision, every instance together.",
      properties: {
        from: STRING,
        to: STRING,
        sent: { type: 'integer', description: 'Admitted requests handed to the origin.' },
        requests: { type: 'integer', description: 'Answers the origin gave, any status.' },
        errors: { type: 'integer', description: 'Of those, 5xx.' },
        timeouts: { type: 'integer', description: 'No answer within UPSTREAM_TIMEOUT_MS (the visitor got 504).' },
        unreachable: { type: 'integer', description: 'The origin out of reach (the visitor got 502).' },
        lagged: { type: 'integer', description: 'Steps whose latencies an instance left out, its own event loop lagging.' },
        p50Ms: INTEGER,
        p90Ms: INTEGER,
        p99Ms: INTEGER,
      },
    },
    decision: {
      type: 'object',
      nullable: true,
      description: 'Adaptive: the last decision, or null before the first.',
      properties: {
        at: STRING,
        action: { type: 'string', enum: ['increase', 'decrease', 'hold'] },
        reason: {
          type: 'string',
          description:
            'A code: starting, latency_low, latency_near_target, latency_high, latency_severe, errors, cut_recently, recovering, not_in_use, few_samples, gateway_busy, no_answers, at_ceiling, pinned, unpinned.',
        },
        detail: { type: 'string', description: 'The same in words, with the figures.' },
        releasePerMinute: NUMBER,
        activeLimit: INTEGER,
      },
    },
  },
} as const;
