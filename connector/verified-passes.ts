import type { Pass } from './pass.js';

/**
 * Passes already verified, by their exact text: an admitted visitor sends the same pass with
 * every request, and Web Crypto's verify is asynchronous (in Node, a trip to its thread pool),
 * so each is verified once and afterwards only its expiry is read. Only verified passes enter;
 * the oldest leave first past `capacity`.
 */
export class VerifiedPasses {
  private readonly passes = new Map<string, Pass>();

  constructor(private readonly capacity = 10_000) {}

  /** The pass `token` was verified as, while it has not expired at `now` (ms). */
  get(token: string, now: number): Pass | undefined {
    const pass = this.passes.get(token);
    if (pass === undefined) return undefined;
    if (pass.expiresAt * 1000 > now) return pass;
    this.passes.delete(token);
    return undefined;
  }

  add(token: string, pass: Pass): void {
    if (this.passes.size >= this.capacity) this.passes.delete(this.passes.keys().next().value!);
    this.passes.set(token, pass);
  }
}
