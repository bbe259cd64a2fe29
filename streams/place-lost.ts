/**
 * A place in line can be lost (an extension beyond the spec): the server no longer knows the
 * visitor's uuid, e.g. after a restart of a server that keeps the line in memory, or once the
 * place expired. A `queueInfo()` call says so by erroring with a value marked `placeLost: true`;
 * any other error is a failed poll. The marker is a property, not a class, so that it is
 * recognised across copies of this package (no `instanceof`).
 */
export interface PlaceLost {
  readonly placeLost: true;
}

/** The error a `queueInfo()` call fails with when the server does not know the place; `message` says how it said so. */
export function placeLost(message: string): Error & PlaceLost {
  return Object.assign(new Error(message), { placeLost: true as const });
}

/** True for a value marked as a lost place (made by `placeLost()`, or by any copy of it). */
export const isPlaceLost = (error: unknown): error is PlaceLost => (error as Partial<PlaceLost> | null)?.placeLost === true;
