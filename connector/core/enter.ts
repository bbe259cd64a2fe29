import { base64url } from './visitor.js';

/**
 * The signed enter: a connector sends a visitor to `/queue/enter/<room>?target=…&visitor=…`
 * with `at` (when, in seconds) and `sig`, the HMAC-SHA256 under the shared PASS_SECRET of room,
 * visitor, target and time. The waiting room hands a pass back in the address only for an enter
 * a connector signed: a target the connector sent the visitor from (a protected address, where
 * the connector takes the pass off the address at once) and the visitor id it gave that browser.
 * Another page cannot make one up to have an admitted visitor carry a pass for the attacker's
 * visitor id to a page of its choosing (docs/security.md).
 */
export const ENTER_VERSION = 'enter-v1';

/**
 * How long a signed enter is taken: the waiting page sends the same address again when the
 * visitor's turn comes, which may be hours after they arrived.
 */
export const ENTER_LIFETIME_SECONDS = 24 * 3600;
/** Clocks of the site and the waiting room may differ this much. */
const CLOCK_SKEW_SECONDS = 60;

export interface EnterClaim {
  readonly room: string;
  readonly visitor: string;
  /** The absolute address the visitor asked for. */
  readonly target: string;
  /** When the connector signed it, in seconds since the epoch. */
  readonly at: number;
}

const keys = new Map<string, Promise<CryptoKey>>();
function keyOf(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (key === undefined) {
    key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keys.set(secret, key);
  }
  return key;
}

/** What is signed: each field on its own line (none may hold a line break: the target is an encoded URL). */
const message = (claim: EnterClaim) => new TextEncoder().encode([ENTER_VERSION, claim.room, claim.visitor, claim.target, String(claim.at)].join('\n'));

/** The signature of `claim`, base64url. */
export async function signEnter(claim: EnterClaim, secret: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.sign('HMAC', await keyOf(secret), message(claim))));
}

/** True when `signature` is the one `secret` gives `claim`, and `claim.at` is within its lifetime at `now` (ms). */
export async function verifyEnter(claim: EnterClaim, signature: string, secret: string, now: number): Promise<boolean> {
  const seconds = Math.floor(now / 1000);
  if (!Number.isSafeInteger(claim.at) || claim.at > seconds + CLOCK_SKEW_SECONDS || claim.at < seconds - ENTER_LIFETIME_SECONDS) return false;
  if (/[\n\r]/.test(claim.room + claim.visitor + claim.target)) return false;
  const bytes = fromBase64url(signature);
  if (bytes === undefined) return false;
  // Web Crypto's verify compares in constant time.
  return crypto.subtle.verify('HMAC', await keyOf(secret), bytes, message(claim));
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return undefined;
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '=');
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
