import type { AdmissionRecord, AdmissionStore } from '../domain/admission/record';
import { KEPT_STEPS } from '../domain/admission/record';
import { NO_SIGNALS, addSignals, type SignalCounts } from '../domain/admission/signals';

/** A room's decision in this process: one instance, so every step is its own. */
export class MemoryAdmissionStore implements AdmissionStore {
  private readonly steps = new Map<number, SignalCounts>();
  private record?: AdmissionRecord;

  async report(step: number, counts: SignalCounts): Promise<void> {
    const before = this.steps.get(step);
    this.steps.set(step, before ? addSignals([before, counts]) : counts);
    for (const kept of this.steps.keys()) if (kept <= step - KEPT_STEPS) this.steps.delete(kept);
  }

  async counts(steps: readonly number[]): Promise<SignalCounts[]> {
    return steps.map((step) => this.steps.get(step) ?? NO_SIGNALS);
  }

  async read(): Promise<AdmissionRecord | undefined> {
    return this.record;
  }

  async write(version: number, next: Omit<AdmissionRecord, 'version'>): Promise<boolean> {
    if ((this.record?.version ?? 0) !== version) return false;
    this.record = { ...next, version: version + 1 };
    return true;
  }
}
