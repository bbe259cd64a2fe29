/**
 * Why the domain refused an operation, in its own terms; the HTTP edge gives each kind its status
 * (`http/errors.ts`): `invalid` 400, `not_found` 404, `conflict` 409, `busy` 503 with Retry-After.
 */
export type RefusalKind = 'invalid' | 'not_found' | 'conflict' | 'busy';

/** An operation the domain refuses: `code` is what a client branches on, `message` what a person reads. */
export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly kind: RefusalKind,
    readonly code: string,
    message: string,
    /** For `busy`: when trying again is worth it. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}
