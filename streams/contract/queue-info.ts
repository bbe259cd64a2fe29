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
}

/** The data of the `QueueMoved` event (an extension): every ticket up to `served` has left the head of the line. */
export interface LineMoved {
  readonly served: number;
}

/** A ticket count the line can be moved by: a non-negative whole number. */
export const isTicketCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

const isAmount = (value: unknown): value is number => typeof value == 'number' && Number.isFinite(value) && value >= 0;

/**
 * A queue_info answer as a page shows it, or null when it cannot be shown: `position` and
 * `estimated` must be finite, non-negative numbers (showing NaN, or starting the position-0
 * watchdog on garbage, would be worse than a failed call). `ticket` and `served` are kept only
 * when both are non-negative whole numbers: a bad pair is dropped, not the answer. Anything else
 * in the answer is left out.
 */
export function queueInfoOf(answer: unknown): QueueInfo | null {
  if (typeof answer != 'object' || answer === null) return null;
  const { position, estimated, ticket, served } = answer as Record<string, unknown>;
  if (!isAmount(position) || !isAmount(estimated)) return null;
  return isTicketCount(ticket) && isTicketCount(served) ? { position, estimated, ticket, served } : { position, estimated };
}
