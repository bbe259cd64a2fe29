import { signPass } from '@waiting-room/connector';
import type { Room } from '../domain/rooms';

/** Passes kept for reuse, at most: about one per admitted session. */
const KEPT = 20_000;

/**
 * Gives the signed pass (`@waiting-room/connector`, docs/pass.md) to an admitted session: valid
 * until its admission ends, so that a site that checks only the pass admits nobody longer than
 * the waiting room counts them. The same session asking again before then gets the same pass,
 * signed once and with no trip to the store (the gateway adds one to every admitted request it
 * sends to the origin). A connector's visitor (`current`) gets it only while it is of the session's
 * admission as the store has it now: after a revoke the session's next admission ends later, and the
 * connectors refuse the revoked one's passes.
 */
export class PassIssuer {
  private readonly kept = new Map<string, { readonly pass: string; readonly expiresAt: number }>();

  constructor(private readonly secret: string) {}

  /**
   * The pass of `session`, admitted in `room` at `now`, given to `visitor`; with `current`, of the
   * session's admission as the store has it now (read), not only the last one this process saw.
   */
  async issue(room: Room, visitor: string, session: string, now: number, options: { readonly current?: boolean } = {}): Promise<string> {
    const key = `${room.name}\n${visitor}\n${session}`;
    const kept = this.kept.get(key);
    const usable = kept !== undefined && kept.expiresAt * 1000 > now;
    if (usable && !options.current) return kept.pass;
    const until = await room.store.admittedUntil(session, now);
    // A scheduled event that lets everyone through admits nobody in the store: its pass lasts a session.
    const expiresAt = Math.floor((until ?? now + room.limits.sessionMs) / 1000);
    if (usable && kept.expiresAt === expiresAt) return kept.pass;
    const pass = await signPass({ room: room.name, visitor, session, issuedAt: Math.floor(now / 1000), expiresAt }, this.secret);
    this.kept.delete(key);
    if (this.kept.size >= KEPT) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, { pass, expiresAt });
    return pass;
  }
}
