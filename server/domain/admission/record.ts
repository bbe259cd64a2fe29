import type { ControllerState, Decision } from './law';
import type { SignalCounts, SignalSummary } from './signals';

/** A rate and limit set by hand, which the controller leaves alone until unpinned. */
export interface Pin {
  readonly perMinute: number;
  readonly activeLimit: number;
  /** Clock time it was set (ms). */
  readonly at: number;
}

/**
 * One room's admission decision, shared by every instance: the controller's state, what it
 * decided last and on which signals, and the operator's pin. Stored whole; `version` lets an
 * instance write only over the record it read (`AdmissionStore.write`).
 */
export interface AdmissionRecord {
  readonly version: number;
  /** The last step decided (`floor(clock / stepMs)`): each step is decided once, by one instance. */
  readonly decidedStep: number;
  readonly controller: ControllerState;
  readonly decision: Decision | null;
  readonly signals: SignalSummary | null;
  readonly pinned: Pin | null;
}

/**
 * Where a room's decision lives: in the process (`MemoryAdmissionStore`) or in Redis
 * (`RedisAdmissionStore`) for several instances. Each instance reports what it saw of the origin
 * in each step; the counts add up in the store; one instance decides a step and writes the record
 * only over the version it read, so that one decision stands whoever takes it, and any instance
 * can take it when another dies.
 */
export interface AdmissionStore {
  /** Adds one instance's counts to those of step `step`. */
  report(step: number, counts: SignalCounts): Promise<void>;
  /** Every instance's counts for each of `steps`, in order (none: zeros). */
  counts(steps: readonly number[]): Promise<SignalCounts[]>;
  /** The record, or undefined before the first decision. */
  read(): Promise<AdmissionRecord | undefined>;
  /**
   * Writes `next` as version `version + 1` if the record is still at `version` (0: none yet).
   * False when another instance wrote first; nothing is changed then.
   */
  write(version: number, next: Omit<AdmissionRecord, 'version'>): Promise<boolean>;
}

/** How many steps' counts a store keeps: the window the controller reads, and some slack. */
export const KEPT_STEPS = 10;
