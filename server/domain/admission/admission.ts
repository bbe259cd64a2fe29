import type { Logger } from '../logger';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Clock } from '../clock';
import { DomainError } from '../errors';
import { within, type Admitted } from '../policy';
import type { ReleasePolicy } from '../../store/types';
import { activeLimitFor, activeLimitOf, decide, initialState, stateFrom, type ControllerState, type Decision, type LawSettings } from './law';
import type { AdmissionRecord, AdmissionStore, Pin } from './record';
import { OriginSignals, addSignals, summarize } from './signals';
import { viewOf, type AdmissionView } from './view';

/**
 * How a room admits: at the operator's policy (`FixedAdmission`), or at a rate and limit set below
 * it from what the gateway sees of the origin (`AdaptiveAdmission`). Its decision is the last link
 * of the chain that decides the policy in force (`policy.ts`); the operator's policy, the first
 * three, are its ceilings.
 */
export interface Admission {
  /**
   * Its decision, read with every reading of the policy in force: the same object while nothing
   * changes; undefined when it admits at the operator's policy as it is (fixed admission).
   */
  admitted(): Admitted | undefined;
  /**
   * Where the gateway counts the origin's answers to this room's admitted requests; undefined
   * when nothing reads them (fixed admission), so that the forwarding path does nothing more.
   */
  readonly signals?: OriginSignals;
  /** What the admin API shows. */
  view(): AdmissionView;
  /** Sets the rate and the limit by hand until `unpin` (each defaults to its value now). */
  pin(wanted: { readonly perMinute?: number; readonly activeLimit?: number }): Promise<AdmissionView>;
  unpin(): Promise<AdmissionView>;
  /** Starts deciding on `clock` (nothing to do for fixed admission); the returned function stops. */
  start(): () => Promise<void>;
}

/**
 * The operator's policy: RELEASE_PER_MINUTE and ACTIVE_LIMIT as configured, or as last set by
 * `POST /admin/limits` or a running event (`policy.ts` without admission), with the session and
 * abandon times. A new object when it changes.
 */
export type OperatedPolicy = () => ReleasePolicy;

/** RELEASE_PER_MINUTE and ACTIVE_LIMIT as configured, or as the operator set them. */
export class FixedAdmission implements Admission {
  constructor(private readonly operated: OperatedPolicy) {}

  admitted(): undefined {
    return undefined;
  }

  view(): AdmissionView {
    const { perMinute, activeLimit } = this.operated();
    return { mode: 'fixed', releasePerMinute: perMinute, activeLimit };
  }

  async pin(): Promise<AdmissionView> {
    throw notAdaptive();
  }

  async unpin(): Promise<AdmissionView> {
    throw notAdaptive();
  }

  start(): () => Promise<void> {
    return async () => {};
  }
}

function notAdaptive(): DomainError {
  return new DomainError('conflict', 'not_adaptive', 'This room admits at its configured rate (ADMISSION=fixed): there is no controller to pin.');
}

/** The law's settings but its ceilings, which are the operator's policy's rate and limit. */
export type AdaptiveSettings = Omit<LawSettings, 'ceilingPerMinute' | 'ceilingActive'>;

export interface AdaptiveOptions {
  /** The ceilings (its rate and limit), with the session and abandon times. */
  readonly operated: OperatedPolicy;
  readonly settings: AdaptiveSettings;
  readonly store: AdmissionStore;
  readonly clock: Clock;
  readonly log: Logger;
  /** The room's line now: the rate grows only while visitors wait and the room is not paused. */
  readonly room: () => Promise<{ readonly waiting: number; readonly paused: boolean; readonly active?: number }>;
  /**
   * This process's event-loop delay since the last call, p99 in ms; by default measured (a
   * timer every 10 ms). A model run on a manual clock gives its own.
   */
  readonly loopLagMs?: () => number;
}

/**
 * An instance whose event loop lagged more than this share of the target in a step leaves its
 * latencies of the step out: they are partly its own delay, not the origin's.
 */
export const LOOP_LAG_SHARE = 0.5;

/** The event loop's delay p99 since the last `read` (ms), from a histogram kept until `stop`. */
function measuredLoopLag(): { read: () => number; stop: () => void } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  return {
    read: () => {
      const p99 = histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0;
      histogram.reset();
      return p99;
    },
    stop: () => histogram.disable(),
  };
}

/** How many steps of counts a decision reads: enough answers for a p99, recent enough to act on. */
export const WINDOW_STEPS = 3;
/** Tries of a pin or unpin against other instances writing at the same moment. */
const WRITE_TRIES = 5;

/**
 * The rate and the limit follow what the gateway sees of the origin (`law.ts`). Every `stepMs`
 * each instance adds what it counted since its last step to the store, under the step the clock
 * is in; the first instance to get there decides the step over the last `WINDOW_STEPS` steps, and
 * writes the record over the version it read; the others adopt it. The current step holds the
 * counts of the instances that got there first; the others' come into the next decisions, which
 * read the steps before again. The gate and the release loop read the
 * adopted values, never the store: a store away for a while leaves the last decision in force.
 */
export class AdaptiveAdmission implements Admission {
  readonly signals = new OriginSignals();
  private record: AdmissionRecord;
  private current!: ReleasePolicy;
  /** The decision of `record`, as `policy.ts` reads it. */
  private decision!: Admitted;
  /** The operator's policy `current` was made within: a new one (its limits changed) means making it again. */
  private within?: ReleasePolicy;
  private loopLagMs?: () => number;

  constructor(private readonly options: AdaptiveOptions) {
    this.loopLagMs = options.loopLagMs;
    this.record = { version: 0, decidedStep: -1, controller: initialState(this.settings()), decision: null, signals: null, pinned: null };
    this.adopt(this.record);
  }

  admitted(): Admitted {
    return this.decision;
  }

  /** Its decision within the operator's policy (`policy.ts`): the policy in force when it admits. */
  policy(): ReleasePolicy {
    if (this.options.operated() !== this.within) this.adopt(this.record);
    return this.current;
  }

  view(): AdmissionView {
    return viewOf(this.record, this.policy(), this.settings());
  }

  /** The law's settings, with the operator's rate and limit as the ceilings. */
  private settings(): LawSettings {
    const { perMinute, activeLimit } = this.options.operated();
    return { ...this.options.settings, ceilingPerMinute: perMinute, ceilingActive: activeLimit };
  }

  start(): () => Promise<void> {
    const measured = this.options.loopLagMs ? undefined : measuredLoopLag();
    this.loopLagMs = this.options.loopLagMs ?? measured?.read;
    let running: Promise<void> | undefined;
    const cancel = this.options.clock.every(this.options.settings.stepMs, async () => {
      if (running) return;
      running = this.step().finally(() => {
        running = undefined;
      });
      await running;
    });
    return async () => {
      cancel();
      measured?.stop();
      await running;
    };
  }

  /**
   * One step: report, then decide the step before unless another instance did. A store that
   * fails is logged; the limits in force stay, and the next step tries again.
   */
  async step(): Promise<void> {
    const { store, clock, log } = this.options;
    const settings = this.settings();
    const now = clock.now();
    const step = Math.floor(now / settings.stepMs);
    try {
      const lagged = this.loopLagMs?.() ?? 0;
      await store.report(step, this.signals.take(lagged > LOOP_LAG_SHARE * settings.targetMs));
      let record = (await store.read()) ?? this.record0();
      const due = step;
      if (record.decidedStep < due) {
        const steps = Array.from({ length: WINDOW_STEPS }, (_, i) => due - WINDOW_STEPS + 1 + i);
        const counts = addSignals(await store.counts(steps));
        const signals = summarize(counts, (due - WINDOW_STEPS + 1) * settings.stepMs, (due + 1) * settings.stepMs);
        const room = await this.options.room();
        const next = record.pinned
          ? { state: record.controller, decision: pinnedDecision(record.pinned, now, `the origin's p99 ${signals.p99Ms} ms over ${signals.requests} answers`) }
          : decide(record.controller, signals, { now, ...room }, settings);
        const written = { decidedStep: due, controller: next.state, decision: next.decision, signals, pinned: record.pinned };
        if (await store.write(record.version, written)) {
          record = { ...written, version: record.version + 1 };
          if (next.decision.action === 'decrease') log.info({ admission: next.decision }, 'adaptive admission: rate cut');
        } else {
          record = (await store.read()) ?? record;
        }
      }
      this.adopt(record);
    } catch (error) {
      log.warn({ err: error }, 'adaptive admission step failed; the limits in force stay');
    }
  }

  async pin(wanted: { readonly perMinute?: number; readonly activeLimit?: number }): Promise<AdmissionView> {
    const settings = this.settings();
    const current = this.policy();
    const perMinute = wanted.perMinute ?? current.perMinute;
    const activeLimit = wanted.activeLimit ?? current.activeLimit;
    if (perMinute > settings.ceilingPerMinute || activeLimit > settings.ceilingActive) {
      throw new DomainError(
        'invalid',
        'over_ceiling',
        `A pin stays within the room's release rate (${settings.ceilingPerMinute}) and active limit (${settings.ceilingActive}), RELEASE_PER_MINUTE and ACTIVE_LIMIT or the operator's limits.`,
      );
    }
    const now = this.options.clock.now();
    const pinned: Pin = { perMinute, activeLimit, at: now };
    return this.change((record) => ({ ...record, pinned, decision: pinnedDecision(pinned, now, 'set by the operator') }));
  }

  async unpin(): Promise<AdmissionView> {
    const settings = this.settings();
    const now = this.options.clock.now();
    return this.change((record) => {
      if (!record.pinned) return record;
      const controller = stateFrom(record.pinned.perMinute, settings);
      const decision: Decision = {
        at: now,
        action: 'hold',
        reason: 'unpinned',
        detail: `unpinned by the operator: the controller goes on from ${record.pinned.perMinute} a minute`,
        perMinute: controller.perMinute,
        activeLimit: activeLimitFor(controller.perMinute, settings),
      };
      return { ...record, pinned: null, controller, decision };
    });
  }

  /** Applies `update` to the record in the store, again if another instance wrote meanwhile. */
  private async change(update: (record: AdmissionRecord) => AdmissionRecord): Promise<AdmissionView> {
    const { store } = this.options;
    for (let attempt = 0; attempt < WRITE_TRIES; attempt++) {
      const record = (await store.read()) ?? this.record0();
      const next = update(record);
      if (next === record) {
        this.adopt(record);
        return this.view();
      }
      const { version: _read, ...rest } = next;
      if (await store.write(record.version, rest)) {
        this.adopt({ ...rest, version: record.version + 1 });
        return this.view();
      }
    }
    throw new DomainError('busy', 'admission_busy', 'The admission record kept changing under this call; try again.', 1);
  }

  /** The record before anything was stored: where this instance started. */
  private record0(): AdmissionRecord {
    return { ...this.record, version: 0, decidedStep: -1 };
  }

  /** Takes a record's rate and limit into force, within the ceilings (the operator's, which may change). */
  private adopt(record: AdmissionRecord): void {
    const operated = this.options.operated();
    this.record = record;
    const decision: Admitted = record.pinned
      ? { perMinute: record.pinned.perMinute, activeLimit: record.pinned.activeLimit }
      : this.controllerDecision(record.controller, operated);
    // The same objects while their values stay: the policy in force is worked out again only on a change.
    if (decision.perMinute !== this.decision?.perMinute || decision.activeLimit !== this.decision.activeLimit) this.decision = decision;
    const current = within(operated, decision);
    const unchanged = this.within === operated && this.current?.perMinute === current.perMinute && this.current.activeLimit === current.activeLimit;
    this.within = operated;
    if (!unchanged) this.current = current;
  }
  /**
   * The controller's decision: its rate, and while the load its admitted bring is weighed (the
   * opening), the active limit that load allows; otherwise the limit its rate fills.
   */
  private controllerDecision(controller: ControllerState, operated: ReleasePolicy): Admitted {
    if (controller.activeCap == null) return { perMinute: controller.perMinute };
    const perMinute = Math.min(operated.perMinute, controller.perMinute);
    return {
      perMinute: controller.perMinute,
      activeLimit: activeLimitOf({ ...controller, perMinute }, { sessionMs: operated.sessionMs, ceilingActive: operated.activeLimit }),
    };
  }
}

function pinnedDecision(pinned: Pin, now: number, detail: string): Decision {
  return {
    at: now,
    action: 'hold',
    reason: 'pinned',
    detail: `pinned at ${pinned.perMinute} a minute and ${pinned.activeLimit} at once: ${detail}`,
    perMinute: pinned.perMinute,
    activeLimit: pinned.activeLimit,
  };
}
