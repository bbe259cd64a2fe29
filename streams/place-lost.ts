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

/**
 * A place can wait for its bot check (an extension): the server knows it, but it is not in line
 * until the visitor's solution is verified, so there is no position to show yet. A `queueInfo()`
 * call says so by erroring with a value marked `placePending: true` (see `PENDING_STATUS` in the
 * contract); the status stream then neither counts a failed poll nor changes what it shows.
 */
export interface PlacePending {
  readonly placePending: true;
}

/** The error a `queueInfo()` call fails with when the server does not know the place; `message` says how it said so. */
export function placeLost(message: string): Error & PlaceLost {
  return Object.assign(new Error(message), { placeLost: true as const });
}

/** The error a `queueInfo()` call fails with when the place waits for its bot check; `message` says how it said so. */
export function placePending(message: string): Error & PlacePending {
  return Object.assign(new Error(message), { placePending: true as const });
}

/** True for a value marked as a lost place (made by `placeLost()`, or by any copy of it). */
export const isPlaceLost = (error: unknown): error is PlaceLost => (error as Partial<PlaceLost> | null)?.placeLost === true;

/** True for a value marked as a place waiting for its bot check (made by `placePending()`, or by any copy of it). */
export const isPlacePending = (error: unknown): error is PlacePending => (error as Partial<PlacePending> | null)?.placePending === true;

/**
 * A place can have moved to another browser (an extension): the server knows the uuid as that of
 * a place that goes on elsewhere (see `MOVED_AWAY` in the contract). A `queueInfo()` call says so
 * by erroring with a value marked `placeMovedAway: true`; the status stream then ends in `moved`.
 */
export interface PlaceMovedAway {
  readonly placeMovedAway: true;
}

/** The error a `queueInfo()` call fails with when the place moved to another browser; `message` says how it said so. */
export function placeMovedAway(message: string): Error & PlaceMovedAway {
  return Object.assign(new Error(message), { placeMovedAway: true as const });
}

/** True for a value marked as a place moved to another browser (made by `placeMovedAway()`, or by any copy of it). */
export const isPlaceMovedAway = (error: unknown): error is PlaceMovedAway => (error as Partial<PlaceMovedAway> | null)?.placeMovedAway === true;
