import type { OriginSignals } from '../../../server/domain/admission/signals';

/**
 * An origin as a fluid model, for the controller's tests on a manual clock: `capacity` requests
 * a second, each released visitor sending `perVisit` requests spread evenly over `visitSeconds`,
 * a backlog that grows while the load is over the capacity. The latency of an answer is the
 * service time, rising steeply as the origin nears full use, plus the wait behind the backlog.
 * What the gateway would see is fed to the `OriginSignals` of one or more instances, shared out.
 */
export class ModelOrigin {
  /** Releases a second at each past sub-step (newest last), to know the load they make now. */
  private readonly releases: number[] = [];
  private backlog = 0;
  private next = 0;
  /** Answers owed by the sub-steps so far, fractions included, so that a slow origin answers too. */
  private owed = 0;

  constructor(
    public capacity: number,
    private readonly options: { perVisit: number; visitSeconds: number; serviceMs: number; subStepMs: number },
  ) {}

  /** The release rate (a minute) that fills the origin exactly. */
  capacityPerMinute(): number {
    return (this.capacity / this.options.perVisit) * 60;
  }

  /** Runs `ms` of time at the release rate `perMinute`, reporting answers to `signals` in turn. */
  run(ms: number, perMinute: number, signals: readonly OriginSignals[]): { readonly p99Ms: number; readonly load: number } {
    const { perVisit, visitSeconds, serviceMs, subStepMs } = this.options;
    const dt = subStepMs / 1000;
    const kept = Math.round(visitSeconds / dt);
    const latencies: number[] = [];
    let load = 0;
    for (let elapsed = 0; elapsed < ms; elapsed += subStepMs) {
      this.releases.push(perMinute / 60);
      if (this.releases.length > kept) this.releases.shift();
      const visiting = this.releases.reduce((sum, rate) => sum + rate * dt, 0);
      load = (visiting * perVisit) / visitSeconds;
      const use = Math.min(1, load / this.capacity);
      this.backlog = Math.max(0, this.backlog + (load - this.capacity) * dt);
      const latency = serviceMs * (1 + 2 * use ** 8) + (this.backlog / this.capacity) * 1000;
      this.owed += Math.min(load, this.capacity) * dt;
      const answers = Math.floor(this.owed);
      this.owed -= answers;
      for (let i = 0; i < answers; i++) {
        // A little spread, so that percentiles are not all one value.
        const ms = latency * (0.9 + (0.2 * ((i * 7919) % 100)) / 100);
        signals[this.next++ % signals.length].answered(ms, 200);
        latencies.push(ms);
      }
    }
    latencies.sort((a, b) => a - b);
    return { p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0, load };
  }
}
