import { jwtVerify, SignJWT } from 'jose';
import { keyOf, type Pass } from './pass.js';

/**
 * Revoked passes, refused by every connector process within a bound: the waiting room keeps the
 * admissions sites revoked (in its store, shared by its instances) and serves them as a feed,
 * `GET /queue/passes/revoked?room=…&since=<cursor>`; each connector keeps a deny list, added to at
 * once by its own revoke and refreshed from the feed at most every few seconds, on requests (no
 * timer keeps a process or a Worker alive), one refresh at a time. docs/pass.md#revoking.
 */

/** The feed's path at the waiting room. */
export const REVOKED_ROUTE = '/queue/passes/revoked';

/** `iss` of the token a connector reads the feed with: never a pass's, so that neither passes for the other. */
export const FEED_TOKEN_ISSUER = 'waiting-room-connector';

/** How long a feed token is good for, in seconds: one read, with room for clocks that differ. */
const FEED_TOKEN_SECONDS = 60;

/** The default and longest time between two reads of the feed, in seconds (the waiting room may ask for less). */
export const REVOCATION_REFRESH_SECONDS = 5;

/** Longest wait for the feed's answer: past it, the read fails. */
const FEED_TIMEOUT_MS = 2000;

/** Most reads of the feed in one refresh (a read answers up to 1,000 revocations). */
const READS_PER_REFRESH = 20;

/** A connector's options for the revocation feed. */
export interface RevocationFeedOptions {
  /**
   * Seconds between two reads of the revocation feed, at most (5 by default; the waiting room's
   * PASS_REVOCATION_SECONDS lowers it): a pass revoked elsewhere is refused here at most this long
   * after. Read on requests only, never by a timer.
   */
  readonly revocationRefreshSeconds?: number;
  /** Where a feed that cannot be read is reported; `console.warn` by default. */
  readonly log?: (message: string) => void;
  /**
   * True where the runtime ends a request's I/O with its answer (Cloudflare Workers, other edge
   * isolates): a read of the feed another request began may then never settle, so no request
   * waits for one it did not begin. False by default; true by default in `createWebConnector`.
   */
  readonly readsPerRequest?: boolean;
}

/** What the feed answers. */
export interface RevocationFeed {
  /** Admissions revoked since the cursor: their passes, of `session` and ending at `expiresAt` (s) or before, admit nobody. */
  readonly revoked: readonly { readonly session: string; readonly expiresAt: number }[];
  /** The cursor to read from next. */
  readonly cursor: string;
  /** True when more follow the cursor than one read answers. */
  readonly more: boolean;
  /** The waiting room's bound (PASS_REVOCATION_SECONDS): read at least this often. */
  readonly refreshSeconds: number;
}

/** The token a connector reads `room`'s feed with, signed with the pass secret, at `now` (ms). */
export async function signFeedToken(room: string, secret: string, now: number): Promise<string> {
  const at = Math.floor(now / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(FEED_TOKEN_ISSUER)
    .setAudience(room)
    .setIssuedAt(at)
    .setExpirationTime(at + FEED_TOKEN_SECONDS)
    .sign(await keyOf(secret));
}

/** Whether `token` is a feed token of `room`, signed with `secret` and good at `now` (ms). */
export async function verifyFeedToken(token: string, secret: string, room: string, now: number): Promise<boolean> {
  try {
    await jwtVerify(token, await keyOf(secret), {
      algorithms: ['HS256'],
      issuer: FEED_TOKEN_ISSUER,
      audience: room,
      currentDate: new Date(now),
      requiredClaims: ['iat', 'exp'],
      // Two machines' clocks may differ by a few seconds.
      clockTolerance: 5,
    });
    return true;
  } catch {
    return false;
  }
}

export interface RevocationsOptions extends RevocationFeedOptions {
  /** The waiting room's base address, without a trailing slash. */
  readonly waitingRoom: string;
  readonly room: string;
  readonly secret: string;
  /** The clock, in ms. */
  readonly now: () => number;
}

/**
 * A connector process's deny list: the revoked admissions, by session, with the end of the latest
 * revoked one (a session admitted again after a revoke gets passes that end later).
 */
export class Revocations {
  private readonly denied = new Map<string, number>();
  private readonly refreshMs: number;
  private boundMs: number;
  private readonly log: (message: string) => void;
  private cursor: string | undefined;
  /** When the last read that succeeded began (ms): every revocation made before it is known. */
  private readAt = Number.NEGATIVE_INFINITY;
  /** When the last read began, whatever came of it. */
  private triedAt = Number.NEGATIVE_INFINITY;
  private failing = false;
  private refreshing: Promise<void> | undefined;

  constructor(private readonly options: RevocationsOptions) {
    const seconds = options.revocationRefreshSeconds ?? REVOCATION_REFRESH_SECONDS;
    if (!(seconds > 0)) throw new TypeError(`revocationRefreshSeconds: ${seconds} is not a number of seconds above 0.`);
    this.refreshMs = seconds * 1000;
    this.boundMs = this.refreshMs;
    this.log = options.log ?? ((message) => console.warn(message));
  }

  /** Refuses the passes of the admission `pass` belongs to, in this process, from now on. */
  add(pass: Pass): void {
    this.deny(pass.session, pass.expiresAt);
  }

  /**
   * Whether `pass` is revoked: answered at once, or, when the deny list is older than the bound,
   * once it is read again (the one read under way is shared); when it is nearly so, it is read
   * again without waiting.
   * While the feed cannot be read, passes not known to be revoked are admitted (see docs/pass.md).
   */
  refuses(pass: Pass): boolean | Promise<boolean> {
    const now = this.options.now();
    const age = now - this.readAt;
    if (age >= this.boundMs && !this.failing) return this.refresh(now).then(() => this.denies(pass));
    if (age >= this.boundMs / 2 && now - this.triedAt >= this.boundMs / 2) void this.refresh(now);
    // Answered at once, without a turn of the microtask queue, on the hot path.
    return this.denies(pass);
  }

  private denies(pass: Pass): boolean {
    const end = this.denied.get(pass.session);
    return end !== undefined && pass.expiresAt <= end;
  }

  private deny(session: string, expiresAt: number): void {
    if ((this.denied.get(session) ?? Number.NEGATIVE_INFINITY) < expiresAt) this.denied.set(session, expiresAt);
  }

  /**
   * Reads the feed from the cursor, and never rejects: one read at a time, shared by the requests
   * that wait for it; or, where a read belongs to the request that began it, one per request.
   */
  private refresh(now: number): Promise<void> {
    if (this.refreshing !== undefined) return this.refreshing;
    const reading = this.read(now).then(
      () => {
        if (this.failing) this.log(`waiting room: the revocation feed ${this.address()} is read again.`);
        this.failing = false;
        this.readAt = Math.max(this.readAt, now);
        this.forgetExpired(now);
      },
      (error: unknown) => {
        this.failing = true;
        this.log(
          `waiting room: the revocation feed ${this.address()} cannot be read (${error instanceof Error ? error.message : String(error)}); ` +
            'passes revoked by other processes are still admitted here until it can be, or until they expire. Read again in a few seconds.',
        );
      },
    );
    this.triedAt = now;
    if (this.options.readsPerRequest) return reading;
    this.refreshing = reading.finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async read(now: number): Promise<void> {
    const { room, secret } = this.options;
    const token = await signFeedToken(room, secret, now);
    for (let reads = 0; reads < READS_PER_REFRESH; reads++) {
      const answer = await fetch(this.address(this.cursor), {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        signal: AbortSignal.timeout(Math.min(FEED_TIMEOUT_MS, this.boundMs)),
      });
      if (!answer.ok) throw new Error(`${answer.status} ${(await answer.text()).slice(0, 200)}`);
      const feed = (await answer.json()) as RevocationFeed;
      if (!Array.isArray(feed.revoked) || typeof feed.cursor !== 'string') throw new Error('the answer is not a revocation feed');
      for (const { session, expiresAt } of feed.revoked) {
        if (typeof session === 'string' && typeof expiresAt === 'number') this.deny(session, expiresAt);
      }
      this.cursor = feed.cursor;
      if (typeof feed.refreshSeconds === 'number' && feed.refreshSeconds > 0) this.boundMs = Math.min(this.refreshMs, feed.refreshSeconds * 1000);
      if (!feed.more) return;
    }
  }

  private address(cursor?: string): string {
    const query = new URLSearchParams({ room: this.options.room });
    if (cursor !== undefined) query.set('since', cursor);
    return `${this.options.waitingRoom}${REVOKED_ROUTE}?${query}`;
  }

  /** Forgets the revocations whose passes have all expired. */
  private forgetExpired(now: number): void {
    for (const [session, end] of this.denied) if (end * 1000 <= now) this.denied.delete(session);
  }
}
