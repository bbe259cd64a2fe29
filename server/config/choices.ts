/** The closed lists of values a setting may take, shared by the environment and a room. */

/** What the bot check asks of a held visitor: nothing, or a proof of work (see docs/bot-check.md). */
export const BOT_CHALLENGES = ['off', 'pow'] as const;

export const ADMISSION_MODES = ['fixed', 'adaptive'] as const;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** What a held API client may be answered with (QUEUEING_STATUS_CODE): 503 unless its client needs otherwise. */
export const QUEUEING_STATUS_CODES = [503, 200, 202, 429] as const;
export type QueueingStatusCode = (typeof QUEUEING_STATUS_CODES)[number];
/** The same codes as the environment spells them. */
export const QUEUEING_STATUS_CHOICES = ['503', '200', '202', '429'] as const;
