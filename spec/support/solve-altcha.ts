import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/scrypt';
import type { AltchaChallenge } from '@waiting-room/streams/contract';

/**
 * Solves a bot-check challenge as a bot would, with Node's native scrypt (OpenSSL), and answers
 * the payload queue_request takes as `altcha`: the base64 of `{challenge, solution}`.
 */
export async function solveAltcha(challenge: AltchaChallenge): Promise<string> {
  const solution = await solveChallenge({ challenge: structuredClone(challenge), deriveKey });
  if (!solution) throw new Error('The challenge was not solved in time.');
  return altchaPayload(challenge, solution);
}

/** The payload for `challenge` and a solution, right or wrong. */
export function altchaPayload(challenge: AltchaChallenge, solution: { counter: number; derivedKey: string }): string {
  return Buffer.from(JSON.stringify({ challenge, solution: { counter: solution.counter, derivedKey: solution.derivedKey } })).toString('base64');
}
