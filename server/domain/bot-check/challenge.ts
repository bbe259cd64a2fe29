import { createHmac } from 'node:crypto';
import { CappedMap, createChallenge, randomInt, verifySolution, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/scrypt';
import type { AltchaChallenge } from '@waiting-room/streams/contract';
import type { Clock } from '../clock';

/**
 * The key derivation every challenge asks for: scrypt with N = 1024, r = 8, p = 1, so each try
 * needs 1 MiB of memory, and a 32-byte key. Why scrypt and these numbers: docs/bot-check.md.
 */
export const KDF = { algorithm: 'SCRYPT', cost: 1024, memoryCost: 8, parallelism: 1, keyLength: 32 } as const;

/** How long a challenge may be solved in, from when it was issued; a pending place lasts as long. */
export const CHALLENGE_LIFETIME_MS = 5 * 60_000;

/** Most challenges kept to be handed again to the same place (a reload), in this process. */
const CACHED_CHALLENGES = 10_000;

/** A challenge issued, kept for a reload. */
interface Issued {
  readonly challenge: AltchaChallenge;
  readonly difficulty: number;
  readonly expires: number;
}

/** Whose place a challenge is for: a solution counts for this place only. */
export interface PlaceRef {
  readonly uuid: string;
  readonly room: string;
}

/** Why a solution was refused. */
export type Refusal = 'malformed' | 'wrong_place' | 'expired' | 'invalid';

export type Verdict = { readonly verified: true } | { readonly verified: false; readonly refusal: Refusal };

/**
 * The bot check's proof of work, in ALTCHA's protocol (altcha-lib, v2 challenges in its
 * deterministic mode). A challenge names one place (uuid and room) and when it expires, in its
 * signed `data`; its counter is drawn from the upper half of the difficulty, so a solution takes
 * between difficulty / 2 and difficulty key derivations, and no lucky draw makes it free. The
 * server derives the key once when it issues the challenge and signs it (`keySignature`), so that
 * checking a solution is two HMACs, never a key derivation: a flood of wrong solutions costs the
 * server next to nothing.
 *
 * The secrets are derived from SESSION_SECRET, which every instance shares: any instance checks a
 * challenge another issued. Time is the injected clock's, not altcha-lib's: the expiry is in
 * `data.expires` (ms), checked here, and the protocol's `expiresAt` is left out.
 */
export class BotChallenges {
  private readonly signatureSecret: string;
  private readonly keySecret: string;
  /** The challenge last issued to each place, to hand again on a reload while it has time left. */
  private readonly issued = new CappedMap<string, Issued>({ maxSize: CACHED_CHALLENGES });

  constructor(
    sessionSecret: string,
    private readonly clock: Clock,
  ) {
    this.signatureSecret = derivedSecret(sessionSecret, 'challenge');
    this.keySecret = derivedSecret(sessionSecret, 'derived key');
  }

  /**
   * A challenge for `place` at `difficulty`: the one issued last for it when it has at least half
   * its time left and the difficulty is the same (a reload costs no key derivation), else a new one.
   */
  async issue(place: PlaceRef, difficulty: number): Promise<AltchaChallenge> {
    const now = this.clock.now();
    const key = `${place.room}\n${place.uuid}`;
    // CappedMap extends an untyped Map: its `get` is typed by what `set` takes.
    const last = this.issued.get(key) as Issued | undefined;
    if (last && last.difficulty === difficulty && last.expires - now >= CHALLENGE_LIFETIME_MS / 2) return last.challenge;
    const expires = now + CHALLENGE_LIFETIME_MS;
    const challenge = (await createChallenge({
      ...KDF,
      deriveKey,
      counter: randomInt(difficulty, Math.ceil(difficulty / 2)),
      data: { place: place.uuid, room: place.room, expires },
      hmacSignatureSecret: this.signatureSecret,
      hmacKeySignatureSecret: this.keySecret,
    })) as AltchaChallenge;
    this.issued.set(key, { challenge, difficulty, expires });
    return challenge;
  }

  /**
   * Checks `payload`, the base64 of `{challenge, solution}` as ALTCHA's widget sends it, for
   * `place`: a challenge this server signed, for this place, not expired, with the right key. That
   * a solution counts once is the store's part: a pending place enters the line once.
   */
  async verify(payload: string, place: PlaceRef): Promise<Verdict> {
    const decoded = decode(payload);
    if (!decoded) return { verified: false, refusal: 'malformed' };
    const { challenge, solution } = decoded;
    const { data } = challenge.parameters;
    // Read before the signature is checked, so only to refuse: nothing is believed before it is.
    if (data?.place !== place.uuid || data?.room !== place.room) return { verified: false, refusal: 'wrong_place' };
    if (typeof data.expires !== 'number' || data.expires <= this.clock.now()) return { verified: false, refusal: 'expired' };
    // altcha-lib checks the signature over the parameters first, the key signature among them, then
    // the key against its signature: a key derivation is never run, whatever the payload.
    const result = await verifySolution({
      challenge,
      solution,
      deriveKey,
      hmacSignatureSecret: this.signatureSecret,
      hmacKeySignatureSecret: this.keySecret,
    });
    return result.verified ? { verified: true } : { verified: false, refusal: 'invalid' };
  }
}

function derivedSecret(sessionSecret: string, use: string): string {
  return createHmac('sha256', sessionSecret).update(`waiting-room bot check: ${use}`).digest('hex');
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The payload's `{challenge, solution}`, shaped enough for altcha-lib to check, or null. */
function decode(payload: string): { challenge: Challenge; solution: { counter: number; derivedKey: string } } | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64').toString('utf8'));
  } catch {
    return null;
  }
  if (!isObject(value) || !isObject(value.challenge) || !isObject(value.solution)) return null;
  const { challenge } = value;
  if (!isObject(challenge.parameters) || typeof challenge.signature !== 'string') return null;
  if (challenge.parameters.data !== undefined && !isObject(challenge.parameters.data)) return null;
  return value as unknown as { challenge: Challenge; solution: { counter: number; derivedKey: string } };
}
