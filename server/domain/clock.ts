/** Time as the waiting room sees it; tests pass a clock they move by hand. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `step` every `ms` until the returned function is called. */
  every(ms: number, step: () => Promise<void>): () => void;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  every(ms, step) {
    const timer = setInterval(() => void step(), ms);
    return () => clearInterval(timer);
  },
};
