/**
 * The second front end, without React: `<waiting-room-status>` and `heldFetch()`, on the
 * `@waiting-room/streams` package, as one small ES module any page can load from the gateway
 * (`/assets/waiting-room.js`). Loading it defines the element; `heldFetch` is ready to use.
 */
import Pusher from 'pusher-js';
import { solveAltcha } from '../bot-check/solve';
import { createHeldFetch, type HeldFetch } from './held-fetch';
import { STATUS_TAG, WaitingRoomStatus } from './status-element';

/** `fetch`, waiting in line when the waiting room holds the request; `<waiting-room-status>` shows its progress. */
export const heldFetch: HeldFetch = createHeldFetch({
  fetch: (request) => fetch(request),
  createRealtime: (key, options) => new Pusher(key, options),
  onSourceError: (source, error) => console.error(`[waiting-room] ${source} failed`, error),
  // The bot check, in Web Workers, with the gateway's worker script.
  solveAltcha: (challenge) => solveAltcha(challenge),
});

WaitingRoomStatus.progress$ = heldFetch.progress$;
if (!customElements.get(STATUS_TAG)) customElements.define(STATUS_TAG, WaitingRoomStatus);

export { createHeldFetch, MAX_WAITS, type HeldFetch, type HeldFetchDeps } from './held-fetch';
export { WaitingRoomError, type WaitingRoomErrorCode } from './errors';
export type { Progress } from './progress';
export { STATUS_TAG, WaitingRoomStatus } from './status-element';
