import type { Clock } from './clock';
import type { EventSchedule } from './events/schedule';
import { policyInForce, type Admitted, type EventLimits } from './policy';
import type { LimitChange, LimitOverrides, QueueStore, ReleasePolicy } from '../store/types';

/**
 * The operator's limits of one room (`POST /admin/limits`), kept in its store: every instance
 * follows a change made on another within a tick of its release loop, and a restart finds them.
 */
export class OperatorLimits {
  private current: LimitOverrides = {};

  constructor(private readonly store: Pick<QueueStore, 'limits' | 'setLimits'>) {}

  /** As this instance last read them (empty: the configured ones). */
  get overrides(): LimitOverrides {
    return this.current;
  }

  /** Reads them from the store. */
  async follow(): Promise<void> {
    this.keep(await this.store.limits());
  }

  /** Changes them in the store (every instance follows) and here at once. */
  async change(change: LimitChange): Promise<LimitOverrides> {
    const overrides = await this.store.setLimits(change);
    this.keep(overrides);
    return overrides;
  }

  /** The same object while the values stay: what is worked out of them is kept as long. */
  private keep(overrides: LimitOverrides): void {
    if (overrides.activeLimit !== this.current.activeLimit || overrides.perMinute !== this.current.perMinute) this.current = overrides;
  }
}

export interface RoomPolicyParts {
  readonly configured: ReleasePolicy;
  readonly operator: Pick<OperatorLimits, 'overrides'>;
  readonly events: Pick<EventSchedule, 'limits'>;
  readonly clock: Clock;
  /** Adaptive admission's decision (`Admission.admitted`); absent: the policy before admission, its ceilings. */
  readonly admitted?: () => Admitted | undefined;
}

/**
 * A room's policy now (`policy.ts` over its inputs as they are): read on every protected request
 * and by the release loop, so it is worked out again only when an input changed, and is the same
 * object meanwhile.
 */
export class RoomPolicy {
  private kept?: { readonly operator: LimitOverrides; readonly event: EventLimits; readonly admitted?: Admitted; readonly policy: ReleasePolicy };

  constructor(private readonly parts: RoomPolicyParts) {}

  get current(): ReleasePolicy {
    const { configured, operator, events, clock, admitted } = this.parts;
    const inputs = { configured, operator: operator.overrides, event: events.limits(clock.now()), admitted: admitted?.() };
    const kept = this.kept;
    if (kept && kept.operator === inputs.operator && kept.admitted === inputs.admitted && sameEventLimits(kept.event, inputs.event)) return kept.policy;
    this.kept = { ...inputs, policy: policyInForce(inputs) };
    return this.kept.policy;
  }
}

const sameEventLimits = (a: EventLimits, b: EventLimits): boolean =>
  a.activeLimit === b.activeLimit && a.perMinute === b.perMinute && a.random === b.random && a.drawing === b.drawing;
