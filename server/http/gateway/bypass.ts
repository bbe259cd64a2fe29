import { createHmac, timingSafeEqual } from 'node:crypto';
import { BYPASS_HEADER } from './headers';

/**
 * The signed bypass, for monitors that must reach a protected page without waiting (an
 * uptime check of the checkout): `Waiting-Room-Bypass: v1.<expires>.<signature>`, where
 * `expires` is a Unix time in seconds and `signature` the base64url HMAC-SHA256, keyed with
 * BYPASS_SECRET, of `v1.<expires>`. Anyone holding the secret can mint one (`bypassToken`, or
 * `openssl dgst -sha256 -hmac`); it stops working when it expires, so a leaked one does not
 * open the line for good. The header never reaches the origin. `expires` is written as the
 * signature covers it, without leading zeros, so that one signature has one spelling only.
 */
const FORMAT = /^v1\.([1-9]\d{0,11})\.([A-Za-z0-9_-]{43})$/;

/** Longest life a token may claim: a token for ever is a key left under the mat. */
export const MAX_BYPASS_SECONDS = 366 * 24 * 3600;

/** A token valid until `expiresAt` (ms since the epoch). */
export function bypassToken(secret: string, expiresAt: number): string {
  const expires = Math.floor(expiresAt / 1000);
  return `v1.${expires}.${sign(secret, expires)}`;
}

/** True when `header` carries a token signed with `secret` that has not expired at `now` (ms). */
export function hasValidBypass(header: string | string[] | undefined, secret: string | undefined, now: number): boolean {
  if (secret === undefined || typeof header !== 'string') return false;
  const match = FORMAT.exec(header.trim());
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires * 1000 <= now || expires * 1000 > now + MAX_BYPASS_SECONDS * 1000) return false;
  const expected = Buffer.from(sign(secret, expires));
  const given = Buffer.from(match[2] ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function sign(secret: string, expires: number): string {
  return createHmac('sha256', secret).update(`v1.${expires}`).digest('base64url');
}

export { BYPASS_HEADER };
