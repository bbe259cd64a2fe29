import { createHash, randomInt } from 'node:crypto';

/**
 * Priority codes: what one looks like, how it is made and how it is kept. A code is
 * `CODE_LENGTH` characters of `CODE_ALPHABET` (no 0/O, 1/I/L: read aloud or copied by hand without
 * doubt), shown in two groups of five (`7KQ4M-XR9TD`); 31^10 ≈ 8 × 10^14 codes (about 49 bits), so
 * that with the wrong guesses bounded (`CODE_GUESSES`) nobody finds one by trying.
 */
export const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const CODE_LENGTH = 10;

/** Most codes one `POST /admin/codes` issues. */
export const MAX_CODES_PER_CALL = 1000;

/**
 * The bounds on wrong codes: per place, for as long as it lasts; per client address, within a
 * window. Past either, `POST /queue/code` answers 429 without checking the code.
 */
export const CODE_GUESSES = { perPlace: 5, perAddress: 20, windowMs: 10 * 60_000 } as const;

/** A new code, from the operating system's randomness (`randomInt` draws each character uniformly). */
export function newCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** A code as typed, in the form it was issued in: upper case, without spaces or dashes; undefined when it cannot be one. */
export function normalCode(typed: string): string | undefined {
  const code = typed.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== CODE_LENGTH) return undefined;
  for (const character of code) if (!CODE_ALPHABET.includes(character)) return undefined;
  return code;
}

/**
 * What the store keeps of a code: the SHA-256 of the room's name and the code, hex. The code
 * itself is never kept, so a copy of the store gives no code away; the room's name in it makes a
 * code of one room no code of another.
 */
export function codeHash(room: string, code: string): string {
  return createHash('sha256').update(`${room}\n${code}`).digest('hex');
}
