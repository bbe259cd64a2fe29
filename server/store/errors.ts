/**
 * The queue store cannot answer right now (Redis unreachable, too slow, or closed). Nothing
 * the visitor did: the server answers 503 and the visitor keeps their place once it is back.
 * `cause` holds the underlying client error, for the logs.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
