import type { LimitOverrides, ReleasePolicy } from './store/types';

/** What a running event replaces in its room's policy (`events/schedule.ts`). */
export interface EventLimits {
  readonly activeLimit?: number;
  readonly perMinute?: number;
  /** The event's `random` queueing: each release draws among those waiting. */
  readonly random?: boolean;
}

/**
 * The limits and release rate in force for a room, decided here and nowhere else: the
 * configuration's, replaced field by field by the operator's (kept in the store, `/admin/limits`),
 * then by those of an event while it runs. Whatever else comes to bound them (adaptive admission)
 * takes this as its ceiling.
 */
export function policyInForce(configured: ReleasePolicy, operator: LimitOverrides, event: EventLimits = {}): ReleasePolicy {
  return { ...configured, ...operator, ...event };
}
