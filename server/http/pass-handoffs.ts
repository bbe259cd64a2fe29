/** A visitor sent back for the same address this soon after a pass was handed to it: the site refused it. */
export const HANDOFF_LOOP_MS = 10_000;

/** Passes handed in a row to one visitor for one address, each soon after the last, before the loop is stopped. */
export const HANDOFF_LOOP_LIMIT = 3;

/** Handoffs remembered at most: the oldest are forgotten first. */
const KEPT = 10_000;

/**
 * The passes the enter route handed, to see a site that refuses them. A site that checks passes
 * with another secret than PASS_SECRET (or whose clock is wrong) sends the visitor straight back
 * to the enter address, which hands a pass again: the browser bounces between the two until it
 * gives up (ERR_TOO_MANY_REDIRECTS), and nobody learns why. The same visitor (its session and the
 * connector's visitor id) back for the same address within `HANDOFF_LOOP_MS` of its last pass,
 * `HANDOFF_LOOP_LIMIT` times in a row, is such a loop. In this process only: with several
 * instances, each sees its share of the bounces.
 */
export class PassHandoffs {
  private readonly handed = new Map<string, { readonly at: number; readonly streak: number }>();

  /**
   * Records a pass handed for `key` at `now`, and answers how many have been handed in a row,
   * each within `HANDOFF_LOOP_MS` of the one before: 1 for a visitor not seen lately.
   */
  hand(key: string, now: number): number {
    const last = this.handed.get(key);
    const streak = last !== undefined && now - last.at <= HANDOFF_LOOP_MS ? last.streak + 1 : 1;
    this.handed.delete(key);
    if (this.handed.size >= KEPT) this.handed.delete(this.handed.keys().next().value!);
    this.handed.set(key, { at: now, streak });
    return streak;
  }
}
