/**
 * The blocks a room's own page template places (docs/own-page.md): the server writes each
 * `{{block:<name>}}` placeholder as an element with `PAGE_BLOCK_ATTRIBUTE`, and the page renders
 * that block into it. Shared by the server, which checks templates, and the page.
 */
export const PAGE_BLOCKS = ['loading', 'position', 'estimate', 'countdown', 'bot-check', 'verify', 'language'] as const;

export type PageBlock = (typeof PAGE_BLOCKS)[number];

/** The blocks the specification shows: every template places them. */
export const REQUIRED_BLOCKS: readonly PageBlock[] = ['loading', 'position', 'estimate'];

/** The attribute naming the block an element of a room's own page holds. */
export const PAGE_BLOCK_ATTRIBUTE = 'data-waiting-room-block';
