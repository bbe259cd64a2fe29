import { setTimeout as sleep } from 'node:timers/promises';
import { StoreUnavailableError } from './errors';

/** How long a starting server waits for its store before it says it could not read it, in ms. */
export const STORE_START_GRACE_MS = 5000;
const RETRY_MS = 250;

/**
 * `read`, tried again while the store is unavailable, for at most `graceMs`. At start Redis may
 * still be taking its first connections (a container started beside the server, a busy host):
 * that is no fault worth a warning, and the operator's limits and events must still be read before
 * the release loop runs. Past the grace, or on any other error, the caller gets the failure.
 */
export async function onceAvailable<T>(read: () => Promise<T>, graceMs = STORE_START_GRACE_MS): Promise<T> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || Date.now() + RETRY_MS > deadline) throw error;
      await sleep(RETRY_MS);
    }
  }
}
