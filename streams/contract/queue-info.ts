/**
 * The status of queue_info's answer for a place that waits for its bot check (an extension): the
 * place is known but not in line yet, so there is no position, and the body is `{"pending": true}`.
 * It is neither a release (position 0) nor a lost place (404 `unknown_uuid`): ask again later.
 */
export const PENDING_STATUS = 202;

/**
 * One queue_info answer (spec section 3). `estimated` is in minutes; `position` 0 means released.
 * `ticket` and `served` are an extension beyond the spec, sent by servers that count positions
 * from tickets (`position = ticket - served`): with them, a `QueueMoved` push can move the visitor
 * up at once.
 */
export interface QueueInfo {
  readonly position: number;
  readonly estimated: number;
  /** The visitor's order of arrival. */
  readonly ticket?: number;
  /** How many tickets had left the head of the line when the answer was made. */
  readonly served?: number;
  /**
   * An extension: the visitor waits in a scheduled event's pre-queue, which opens in this many ms
   * (0: it has opened, and the draw is under way). There is no position yet: `position` is then
   * only an upper bound (everyone in the pre-queue), never 0.
   */
  readonly opensIn?: number;
}

/** The data of the `QueueMoved` event (an extension): every ticket up to `served` has left the head of the line. */
export interface LineMoved {
  readonly served: number;
}

/**
 * The data of the `QueueOpened` event (an extension): the pre-queue has been drawn, and each page
 * in it asks queue_info for its position once, at a moment of its own within `spread` ms, so that
 * the whole pre-queue does not ask at once.
 */
export interface QueueOpened {
  readonly spread: number;
}

/** A ticket count the line can be moved by: a non-negative whole number. */
export const isTicketCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

const isAmount = (value: unknown): value is number => typeof value == 'number' && Number.isFinite(value) && value >= 0;

/**
 * A queue_info answer as a page shows it, or null when it cannot be shown: `position` and
 * `estimated` must be finite, non-negative numbers (showing NaN, or starting the position-0
 * watchdog on garbage, would be worse than a failed call). `ticket` and `served` are kept only
 * when both are non-negative whole numbers: a bad pair is dropped, not the answer; `opensIn` only
 * when it is a finite, non-negative number. Anything else in the answer is left out.
 */
export function queueInfoOf(answer: unknown): QueueInfo | null {
  if (typeof answer != 'object' || answer === null) return null;
  const { position, estimated, ticket, served, opensIn } = answer as Record<string, unknown>;
  if (!isAmount(position) || !isAmount(estimated)) return null;
  return {
    position,
    estimated,
    ...(isTicketCount(ticket) && isTicketCount(served) && { ticket, served }),
    ...(isAmount(opensIn) && { opensIn }),
  };
}
