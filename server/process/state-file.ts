import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { MemoryStore, type MemoryStoreState } from '../store/memory';

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

/**
 * Makes sure the state file can be written at SIGTERM, before any visitor joins a line that would
 * otherwise be lost then: creates the folders it names that do not exist yet (as `mkdir -p`), then
 * writes a probe beside it and renames it, as `writeStateFile` will. Throws `StateFileError`.
 */
export function prepareStateFile(file: string): void {
  const probe = `${file}.${process.pid}.probe`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeStateBytes(probe, '');
    renameSync(probe, `${probe}.renamed`);
    rmSync(`${probe}.renamed`, { force: true });
  } catch (error) {
    removeQuietly(probe);
    throw new StateFileError(
      `STATE_FILE ${file} cannot be written (${(error as Error).message}): the line could not be kept at SIGTERM; choose a writable place.`,
    );
  }
}

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
  try {
    writeStateBytes(temporary, JSON.stringify(saved));
    renameSync(temporary, file);
  } catch (error) {
    removeQuietly(temporary);
    throw new StateFileError(`STATE_FILE ${file} could not be written (${(error as Error).message}): the line was NOT kept.`);
  }
}

/** Writes `text` to `file`, readable by the server's user only, and flushed to disk. */
function writeStateBytes(file: string, text: string): void {
  const fd = openSync(file, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Removes the state file once its line is live in this process (see `SavedState`). */
export function forgetStateFile(file: string): void {
  rmSync(file, { force: true });
}

/** Removes what a failed write may have left; a folder that is not there is nothing to remove. */
function removeQuietly(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // Nothing was left there.
  }
}
