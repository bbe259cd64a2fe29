import type { DeriveKeyFunction } from 'altcha-lib/types';
import { scrypt } from 'hash-wasm';

/**
 * One try of the bot check's proof of work in a browser: the scrypt key derivation altcha-lib
 * runs on the server (node:crypto), computed in WebAssembly (hash-wasm), since Web Crypto has
 * no scrypt. Refuses any other algorithm.
 */
export const deriveKey: DeriveKeyFunction = async (parameters, salt, password) => {
  if (parameters.algorithm != 'SCRYPT' || !parameters.memoryCost) throw new Error(`Unsupported challenge: ${parameters.algorithm}`);
  const derivedKey = await scrypt({
    password,
    salt,
    costFactor: parameters.cost,
    blockSize: parameters.memoryCost,
    parallelism: parameters.parallelism || 1,
    hashLength: parameters.keyLength,
    outputType: 'binary',
  });
  return { derivedKey };
};
