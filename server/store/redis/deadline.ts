import { performance } from 'node:perf_hooks';
import { isCluster, type RedisClient } from '../../redis/connection';

/**
 * Deadlines in Redis's clock, so that a call the store has already reported as failed (it
 * timed out, e.g. while Redis was frozen) is refused by Redis instead of taking effect later:
 * a late release would free visitors nobody tells, a late takeHeld would lose a held request.
 *
 * The offset between this process's monotonic clock and Redis's clock is measured with TIME
 * on every new connection, rounded so that deadlines come early rather than late; a deadline
 * is set a fifth of the timeout before the client gives up, leaving time for the reply.
 */
export class Deadlines {
  /** Redis ms minus local monotonic ms; undefined until measured, null when TIME fails. */
  private offset?: number | null;
  private measuring?: Promise<void>;

  constructor(
    private readonly client: RedisClient,
    private readonly timeoutMs: number,
    /** On a Redis Cluster, a key of the room's slot: the clock that counts is its primary's. */
    private readonly slotKey?: string,
  ) {}

  /** Whether the offset is measured (or known to be unmeasurable): calls need not wait for `ready`. */
  get known(): boolean {
    return this.offset !== undefined;
  }

  /** Forgets the offset, to measure it again before the next call (new connection, clock step). */
  reset(): void {
    this.offset = undefined;
  }

  /** Measures the offset when it is unknown; rejects when Redis does not answer. */
  async ready(): Promise<void> {
    if (this.offset !== undefined) return;
    this.measuring ??= this.measure().finally(() => {
      this.measuring = undefined;
    });
    await this.measuring;
  }

  /** The Redis time (ms) after which a call sent now must not run; '0' when unknown (no guard). */
  next(): string {
    if (this.offset === undefined || this.offset === null) return '0';
    return String(Math.floor(performance.now() + this.offset + this.timeoutMs * 0.8));
  }

  private async measure(): Promise<void> {
    try {
      const [seconds, micros] = await this.time();
      const after = performance.now();
      this.offset = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - after;
    } catch (error) {
      // Redis refused TIME (renamed or disabled): calls go unguarded rather than not at all.
      if ((error as Error).name === 'ReplyError') this.offset = null;
      else throw error;
    }
  }

  /** Redis's clock: TIME, sent on a Cluster to the primary of the room's slot (TIME alone goes to any node). */
  private time(): Promise<readonly (string | number)[]> {
    if (this.slotKey === undefined || !isCluster(this.client)) return this.client.time();
    return this.client.eval("return redis.call('TIME')", 1, this.slotKey) as Promise<number[]>;
  }
}
