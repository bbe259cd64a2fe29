import { activeLimitFor } from './admission/law';
import type { LimitOverrides, ReleasePolicy } from '../store/types';

/** What a running event replaces in its room's policy (`events/schedule.ts`). */
export interface EventLimits {
  readonly activeLimit?: number;
  readonly perMinute?: number;
  /** The event's `random` queueing: each release draws among those waiting. */
  readonly random?: boolean;
  /** The event whose draw is being placed: releases stop at its last entrant placed. */
  readonly drawing?: string;
}

/**
 * What adaptive admission decided (`admission/admission.ts`): its rate, and its limit when the
 * operator pinned one; without, the limit is what the rate fills in a session.
 */
export interface Admitted {
  readonly perMinute: number;
  readonly activeLimit?: number;
}

/** Everything the policy in force of a room depends on. */
export interface PolicyInputs {
  /** The configuration's: ACTIVE_LIMIT, RELEASE_PER_MINUTE (or the room's), SESSION_SECONDS, the room's AWAY_SECONDS and CLAIM_SECONDS. */
  readonly configured: ReleasePolicy;
  /** The operator's limits (`POST /admin/limits`, kept in the store): empty when none is set. */
  readonly operator: LimitOverrides;
  /** A running event's limits: empty when none runs. */
  readonly event: EventLimits;
  /** Adaptive admission's decision; absent with fixed admission (or to ask for the ceilings). */
  readonly admitted?: Admitted;
}

/**
 * The limits and release rate in force for a room, decided here and nowhere else, in this order:
 * 1. the configuration's;
 * 2. the operator's, field by field;
 * 3. a running event's, field by field (the operator's hold again once it ends);
 * 4. adaptive admission's decision, below what 1–3 give, which are its ceilings.
 */
export function policyInForce({ configured, operator, event, admitted }: PolicyInputs): ReleasePolicy {
  const operated = { ...configured, ...operator, ...event };
  return admitted ? within(operated, admitted) : operated;
}

/** Adaptive admission's decision within `ceilings`: its rate, and its limit or the one its rate fills. */
export function within(ceilings: ReleasePolicy, admitted: Admitted): ReleasePolicy {
  const perMinute = Math.min(ceilings.perMinute, admitted.perMinute);
  const settings = { sessionMs: ceilings.sessionMs, ceilingActive: ceilings.activeLimit };
  const activeLimit = Math.min(ceilings.activeLimit, admitted.activeLimit ?? activeLimitFor(perMinute, settings));
  return { ...ceilings, perMinute, activeLimit };
}
