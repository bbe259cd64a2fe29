/**
 * The bot check's Web Worker: solves an ALTCHA challenge by trying counters in turn, each a scrypt
 * key derivation in WebAssembly (derive-key.ts), with altcha-lib's worker protocol, so that
 * altcha-lib's `solveChallengeWorkers` can split the counters between several of them. A file of
 * its own, fetched only when a challenge is to be solved (see solve.ts).
 */
import { handler } from 'altcha-lib/workers/shared';
import { deriveKey } from './derive-key';

handler({ deriveKey });
