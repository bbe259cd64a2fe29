/**
 * The blocks a room's own page template places (docs/own-page.md): the server writes each
 * `{{block:<name>}}` placeholder as an element with `PAGE_BLOCK_ATTRIBUTE`, and the page renders
 * that block into it. Shared by the server, which checks templates, and the page.
 */
export const PAGE_BLOCKS = ['loading', 'position', 'estimate', 'countdown', 'bot-check', 'verify', 'language', 'message', 'code'] as const;

export type PageBlock = (typeof PAGE_BLOCKS)[number];

/** The blocks the specification shows: every template places them. */
export const REQUIRED_BLOCKS: readonly PageBlock[] = ['loading', 'position', 'estimate'];

/** The attribute naming the block an element of a room's own page holds. */
export const PAGE_BLOCK_ATTRIBUTE = 'data-waiting-room-block';

/** The attribute of an element of a room's own page that holds one of the operator's words, by name. */
export const PAGE_WORD_ATTRIBUTE = 'data-waiting-room-word';

/**
 * The id of the `<script type="application/json">` element of a room's own page that carries its
 * words (`PageWords`), so that a switch of language changes them too.
 */
export const PAGE_WORDS_ELEMENT_ID = 'waiting-room-words';

/** The operator's words, by language then name, and the language a missing word is taken from. */
export interface PageWords {
  readonly words: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly fallback: string;
}
