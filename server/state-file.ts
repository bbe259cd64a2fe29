import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { MemoryStore, type MemoryStoreState } from './store/memory';

/**
 * The line of a single instance on the memory store, kept across a restart for a deploy: written
 * whole at SIGTERM, once nothing changes it any more, and read at the next start.
 *
 * It also keeps the session secret when SESSION_SECRET is not set: visitors carry their session
 * in a cookie signed with it, and a new secret would leave every place in line without its owner.
 *
 * Once read, the file is removed (see `forgetStateFile`): a crash after that must not bring back a
 * line that has moved on since, in which a held request already replayed would be waiting to be
 * replayed again. Crashes, and several instances, are what the Redis store is for.
 */
export interface SavedState {
  readonly version: 1;
  readonly savedAt: string;
  readonly sessionSecret: string;
  readonly line: MemoryStoreState;
}

/** The state file exists but cannot be used; the server refuses to start rather than lose it. */
export class StateFileError extends Error {}

/** What a previous run saved at `file`, or undefined when there is no file. */
export function readStateFile(file: string): { readonly sessionSecret: string; readonly store: MemoryStore } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(`STATE_FILE ${file} cannot be read: ${(error as Error).message}`);
  }
  try {
    const saved = JSON.parse(text) as Partial<SavedState>;
    if (saved.version !== 1 || typeof saved.sessionSecret !== 'string' || saved.sessionSecret.length < 32) {
      throw new Error('it is not a state file this version wrote');
    }
    return { sessionSecret: saved.sessionSecret, store: MemoryStore.fromState(saved.line) };
  } catch (error) {
    throw new StateFileError(`STATE_FILE ${file} cannot be loaded (${(error as Error).message}); move it away to start with an empty line.`);
  }
}

/**
 * Writes the state atomically: to a temporary file beside it, flushed to disk, then renamed over
 * the old one, so that a crash while writing leaves the previous file or the new one, never half.
 * Only the server's user may read it: it holds the session secret and the held requests' bodies.
 */
export function writeStateFile(file: string, store: MemoryStore, sessionSecret: string): void {
  const saved: SavedState = { version: 1, savedAt: new Date().toISOString(), sessionSecret, line: store.toState() };
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(saved));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
}

/** Removes the state file once its line is live in this process (see `SavedState`). */
export function forgetStateFile(file: string): void {
  rmSync(file, { force: true });
}
