import { readFileSync } from 'node:fs';
import { CONFIG_ELEMENT_ID } from '@waiting-room/streams/contract';

/** The element the page reads its config from; the build leaves it empty (`{}`). */
export const CONFIG_ELEMENT = `<script id="${CONFIG_ELEMENT_ID}" type="application/json">{}</script>`;

/**
 * The second front end's loader (`<waiting-room-status>` and `heldFetch()`), under /assets: the
 * name build.mjs gives it (`ELEMENTS_ENTRY`), stable so that a site's pages can name it.
 */
export const ELEMENTS_ENTRY = 'waiting-room.js';

/** The waiting page is missing or was not built as expected. */
export class PageTemplateError extends Error {}

/** The built waiting page, ready to be filled with one visitor's config. */
export interface WaitingPage {
  render(config: unknown): string;
}

/**
 * Reads the built waiting page once. Fails with a message saying how to build it when the
 * file is missing or does not hold exactly one empty config element.
 */
export function loadWaitingPage(htmlPath: string): WaitingPage {
  let html: string;
  try {
    html = readFileSync(htmlPath, 'utf8');
  } catch {
    throw new PageTemplateError(`The waiting page ${htmlPath} is missing: build it first with \`node build.mjs\`.`);
  }
  const parts = html.split(CONFIG_ELEMENT);
  if (parts.length !== 2) {
    throw new PageTemplateError(
      `${htmlPath} must contain exactly one ${CONFIG_ELEMENT}; rebuild it with \`node build.mjs\`.`,
    );
  }
  const [before, after] = parts;
  return {
    render(config) {
      return before + CONFIG_ELEMENT.replace('{}', () => scriptSafeJson(config)) + after;
    },
  };
}

/** JSON that cannot end its `<script>` element early: every `<` is written `\u003c`. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}
