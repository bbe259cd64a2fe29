import { jwtVerify, SignJWT } from 'jose';

/**
 * The signed pass: a JWT (RFC 7519) signed with HMAC-SHA256 (`HS256`) under the secret the
 * waiting room and the site share (PASS_SECRET). docs/pass.md specifies it, with a test vector.
 */
export interface Pass {
  /** The room the visitor was admitted to (`aud`). */
  readonly room: string;
  /** Whom the pass was given to (`sub`): the connector's visitor id, or in gateway mode the session. */
  readonly visitor: string;
  /** The waiting room's session (`sid`): what a revoke ends. */
  readonly session: string;
  /** When it was issued (`iat`), in seconds since the epoch (JWT's unit, not ms: `new Date(issuedAt * 1000)`). */
  readonly issuedAt: number;
  /** When it stops admitting (`exp`), in seconds since the epoch (JWT's unit, not ms: `new Date(expiresAt * 1000)`). */
  readonly expiresAt: number;
}

/** `iss` of every pass. */
export const PASS_ISSUER = 'waiting-room';

const ALGORITHM = 'HS256';

/** The shortest secret accepted: 256 bits, as many as the hash's output (RFC 7518 §3.2). */
export const PASS_SECRET_MIN_LENGTH = 32;

/** The secret as a Web Crypto key, imported once per secret. */
const keys = new Map<string, Promise<CryptoKey>>();

/** The secret as an HMAC-SHA256 key of Web Crypto, imported once. */
export function keyOf(secret: string): Promise<CryptoKey> {
  if (secret.length < PASS_SECRET_MIN_LENGTH) {
    throw new TypeError(`The pass secret must be at least ${PASS_SECRET_MIN_LENGTH} characters long.`);
  }
  let key = keys.get(secret);
  if (key === undefined) {
    key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keys.set(secret, key);
  }
  return key;
}

/** The pass as a compact JWT. */
export async function signPass(pass: Pass, secret: string): Promise<string> {
  return new SignJWT({ sid: pass.session })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setIssuer(PASS_ISSUER)
    .setAudience(pass.room)
    .setSubject(pass.visitor)
    .setIssuedAt(pass.issuedAt)
    .setExpirationTime(pass.expiresAt)
    .sign(await keyOf(secret));
}

/**
 * The pass `token` says, when it is signed with `secret`, for `room` and not expired at `now`
 * (ms); undefined for any other token (forged, altered, expired, another room's, malformed).
 */
export async function verifyPass(token: string, secret: string, room: string, now: number): Promise<Pass | undefined> {
  try {
    const { payload } = await jwtVerify(token, await keyOf(secret), {
      algorithms: [ALGORITHM],
      issuer: PASS_ISSUER,
      audience: room,
      currentDate: new Date(now),
      requiredClaims: ['sub', 'sid', 'iat', 'exp'],
      clockTolerance: 0,
    });
    if (typeof payload.sid !== 'string') return undefined;
    return { room, visitor: payload.sub!, session: payload.sid, issuedAt: payload.iat!, expiresAt: payload.exp! };
  } catch {
    return undefined;
  }
}
