/**
 * A realtime event could not be handed to the other instances (Redis unreachable, too slow,
 * or the fanout closed). This instance's own clients have already received it; the server
 * answers 503, and a released visitor still learns of the release from queue_info and from
 * the event queue_request sends again. `cause` holds the client error, for the logs.
 */
export class FanoutUnavailableError extends Error {
  override readonly name = 'FanoutUnavailableError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
