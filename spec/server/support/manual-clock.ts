import type { Clock } from '../../../server/domain/clock';

/**
 * A clock the test moves by hand. `advance` runs every periodic step that falls due, in time
 * order, and waits for each, so a test knows the release loop has run when it returns.
 */
export class ManualClock implements Clock {
  private current: number;
  private readonly timers = new Set<{ every: number; next: number; step: () => Promise<void> }>();

  constructor(start = Date.UTC(2030, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  every(ms: number, step: () => Promise<void>): () => void {
    const timer = { every: ms, next: this.current + ms, step };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  /** Moves time forward by `ms`, running the steps that fall due on the way. */
  async advance(ms: number): Promise<void> {
    const end = this.current + ms;
    for (;;) {
      const due = [...this.timers].filter((timer) => timer.next <= end).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      this.current = Math.max(this.current, due.next);
      due.next += due.every;
      await due.step();
    }
    this.current = end;
  }
}
