/** Why `heldFetch()` stopped waiting in line for a request it was given. */
export type WaitingRoomErrorCode =
  /** The wait failed as the waiting page's does; the message is the specification's ('Websoket KO - unavailable', …). */
  | 'failed'
  /** The gateway's answer said "held", but its config is malformed (the message lists each problem). */
  | 'bad_config'
  /** Held again after each turn, more times than allowed (`maxWaits`). */
  | 'too_many_waits';

/**
 * The error a `heldFetch()` promise rejects with when the request could not wait its turn; it
 * was never sent to the site. An abort rejects with the signal's reason instead, as `fetch` does.
 */
export class WaitingRoomError extends Error {
  override readonly name = 'WaitingRoomError';

  constructor(
    readonly code: WaitingRoomErrorCode,
    message: string,
  ) {
    super(message);
  }
}
