import { setTimeout as sleep } from 'node:timers/promises';
import { HttpError } from '../errors';

/** Wrong admin tokens one client address may send a minute before the next are refused. */
export const FAILURES_PER_MINUTE = 10;
const WINDOW_MS = 60_000;
/** How long a wrong token past the limit waits for its refusal: a guesser's turn costs time. */
export const SLOWED_MS = 1_000;
/** Addresses remembered at most; past it the least recently failed are forgotten first. */
const MAX_ADDRESSES = 10_000;

/**
 * The wrong admin tokens each client address sent in the last minute, by Bearer header or at
 * the console's sign-in alike. Only failures count, and only a wrong token is ever refused for
 * them: the right one always passes, so nobody who shares the operator's address can lock the
 * operator out. Past the limit a wrong token waits `SLOWED_MS`, then gets 429 instead of 401.
 */
export class AdminFailures {
  private readonly byAddress = new Map<string, number[]>();

  constructor(
    private readonly now: () => number,
    private readonly slowedMs = SLOWED_MS,
  ) {}

  /** Counts a wrong token from `address`; past the limit, waits and throws 429. */
  async failed(address: string): Promise<void> {
    const now = this.now();
    const recent = (this.byAddress.get(address) ?? []).filter((at) => at > now - WINDOW_MS);
    recent.push(now);
    // Re-inserted, so that the map's first key is the address that failed least recently.
    this.byAddress.delete(address);
    this.byAddress.set(address, recent.slice(-(FAILURES_PER_MINUTE + 1)));
    if (this.byAddress.size > MAX_ADDRESSES) this.byAddress.delete(this.byAddress.keys().next().value as string);
    if (recent.length <= FAILURES_PER_MINUTE) return;
    await sleep(this.slowedMs);
    const retryAfter = Math.max(1, Math.ceil(((recent.at(-FAILURES_PER_MINUTE) ?? now) + WINDOW_MS - now) / 1000));
    throw new HttpError(429, 'rate_limited', `Too many wrong admin tokens from this address; retry in ${retryAfter} s.`, { 'retry-after': String(retryAfter) });
  }
}
