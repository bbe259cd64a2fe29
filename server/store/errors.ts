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

/**
 * A new place would take its client address past PLACES_PER_ADDRESS (`HoldOptions`): nothing was
 * changed. The server answers 429 and the visitor may come back once a place of theirs is gone.
 */
export class PlacesPerAddressError extends Error {
  override readonly name = 'PlacesPerAddressError';

  constructor(readonly limit: number) {
    super(`This address already holds ${limit} place${limit === 1 ? '' : 's'} in line.`);
  }
}
