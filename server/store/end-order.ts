/**
 * Admissions by when they end, soonest first: a binary min-heap of (end, session). The memory
 * store takes from it only the admissions that have ended, instead of reading every admission
 * each time one ends. It is told every end set; an end changed or removed since stays in the heap
 * until its time and is then told apart by the caller (the session's end is no longer that one).
 */
export class EndOrder {
  private ends: number[] = [];
  private sessions: string[] = [];

  get size(): number {
    return this.ends.length;
  }

  /** The soonest end, or +∞ when there is none. */
  get soonest(): number {
    return this.ends.length > 0 ? this.ends[0] : Number.POSITIVE_INFINITY;
  }

  add(end: number, session: string): void {
    const { ends, sessions } = this;
    let i = ends.length;
    ends.push(end);
    sessions.push(session);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (ends[parent] <= end) break;
      ends[i] = ends[parent];
      sessions[i] = sessions[parent];
      i = parent;
    }
    ends[i] = end;
    sessions[i] = session;
  }

  /** Takes every end at or before `now` off the heap, soonest first, and gives each to `ended`. */
  takeUpTo(now: number, ended: (session: string, end: number) => void): void {
    while (this.ends.length > 0 && this.ends[0] <= now) {
      const end = this.ends[0];
      const session = this.sessions[0];
      this.removeSoonest();
      ended(session, end);
    }
  }

  private removeSoonest(): void {
    const { ends, sessions } = this;
    const lastEnd = ends.pop() as number;
    const lastSession = sessions.pop() as string;
    const n = ends.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const child = left + 1 < n && ends[left + 1] < ends[left] ? left + 1 : left;
      if (ends[child] >= lastEnd) break;
      ends[i] = ends[child];
      sessions[i] = sessions[child];
      i = child;
    }
    ends[i] = lastEnd;
    sessions[i] = lastSession;
  }
}
