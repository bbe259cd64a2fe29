import { readFileSync } from 'node:fs';
import { CONFIG_ELEMENT_ID, type PageConfigJson } from '@waiting-room/streams/contract';
import { ENGLISH, LOCALES, type Locale } from '../../locales';
import { escapeHtml } from './html';
import type { Languages, ServedLanguage } from './languages';
import { inlineScripts, inlineStyles } from './security-headers';

/** The element the page reads its config from; the build leaves it empty (`{}`). */
export const CONFIG_ELEMENT = `<script id="${CONFIG_ELEMENT_ID}" type="application/json">{}</script>`;

/**
 * The second front end's loader (`<waiting-room-status>` and `heldFetch()`), under /assets: the
 * name build.mjs gives it (`ELEMENTS_ENTRY`), stable so that a site's pages can name it.
 */
export const ELEMENTS_ENTRY = 'waiting-room.js';

/** The waiting page is missing or was not built as expected. */
export class PageTemplateError extends Error {}

/** The built waiting page, ready to be filled with one visitor's config, in their language. */
export interface WaitingPage {
  /**
   * The page with `config` in it, in `language`; with `queueInfoUrl`, the head preloads it (see
   * queueInfoPreload).
   */
  render(config: unknown, language: ServedLanguage, queueInfoUrl?: string): string;
  /** The contents of its inline `<style>` elements, which its policy names by hash. */
  readonly styles?: readonly string[];
  /** The contents of its inline `<script>` elements that run, which its policy names by hash. */
  readonly scripts?: readonly string[];
}

/**
 * The queue_info address the page asks first, for its head to preload, or undefined when the page
 * will not ask it at once: without a pending request (it only leaves), or while the place waits for
 * its bot check (the answer would only say so). Fetched as the head is read, its answer is there
 * when the page's first queue_info call goes out (the browser hands the preloaded answer to that
 * call), instead of a round trip after the scripts have loaded.
 */
export function queueInfoPreload(config: PageConfigJson): string | undefined {
  if (!config.queue.uri.trim() || config.altcha) return undefined;
  return config.routes.queue_info.replace('{uuid}', encodeURIComponent(config.queue.uuid));
}

/**
 * What the built page says before any script runs, in English (public/index.html), and the
 * message each is in another language: the page's language and direction, its title (also the
 * loading block's heading), the loading block and the notice shown without JavaScript. Each
 * must be in the page.
 */
const LOCALIZED: ReadonlyArray<{ readonly english: string; readonly localized: (language: ServedLanguage) => string }> = [
  { english: '<html lang="en">', localized: ({ locale, dir }) => `<html lang="${locale}" dir="${dir}">` },
  ...(['page.title', 'page.loading', 'html.noscript'] as const).map((key) => ({
    english: `>${escapeHtml(ENGLISH[key])}<`,
    localized: ({ t }: ServedLanguage) => `>${escapeHtml(t(key))}<`,
  })),
];

/** The built waiting page in every language; a room's own page is made of its parts (page-template.ts). */
export interface BuiltWaitingPage extends WaitingPage {
  /** The whole page in `locale`, with its empty config element. */
  localized(locale: Locale): string;
}

/**
 * Reads the built waiting page once and writes it in every language. Fails with a message saying
 * how to build it when the file is missing, does not hold exactly one empty config element, or
 * does not say in English, once each, what is written in the visitor's language.
 */
export function loadWaitingPage(htmlPath: string, languages: Languages): BuiltWaitingPage {
  let html: string;
  try {
    html = readFileSync(htmlPath, 'utf8');
  } catch {
    throw new PageTemplateError(`The waiting page ${htmlPath} is missing: build it first with \`node build.mjs\`.`);
  }
  const problem = pageProblem(html);
  if (problem !== undefined) throw new PageTemplateError(`${htmlPath} must contain ${problem}; rebuild it with \`node build.mjs\`.`);
  for (const { english } of LOCALIZED) {
    if (!html.includes(english)) {
      throw new PageTemplateError(`${htmlPath} must contain ${english}, as locales/en.json says it; rebuild it with \`node build.mjs\`.`);
    }
  }
  const localized = new Map(
    LOCALES.map((locale) => {
      const language = languages.get(locale);
      return [locale, LOCALIZED.reduce((page, { english, localized }) => page.split(english).join(localized(language)), html)];
    }),
  );
  return { ...waitingPageOf(localized), localized: (locale) => localized.get(locale) as string };
}

/** What a page lacks to be filled with a config: exactly one empty config element, after exactly one `</head>`. */
export function pageProblem(html: string): string | undefined {
  const parts = html.split(CONFIG_ELEMENT);
  if (parts.length !== 2) return `exactly one ${CONFIG_ELEMENT}`;
  if (parts[0].split('</head>').length !== 2) return 'exactly one </head> before its config';
  return undefined;
}

/**
 * The page written in each language (each with its empty config element, once, after its one
 * `</head>`), filled per visitor; its policy names the inline styles and scripts of every language's.
 */
export function waitingPageOf(localized: ReadonlyMap<Locale, string>): WaitingPage {
  const pages = new Map([...localized].map(([locale, html]) => [locale, html.split(CONFIG_ELEMENT) as [string, string]]));
  const all = [...localized.values()];
  const unique = (found: (html: string) => string[]) => [...new Set(all.flatMap(found))];
  return {
    styles: unique(inlineStyles),
    scripts: unique(inlineScripts),
    render(config, language, queueInfoUrl) {
      const [before, after] = pages.get(language.locale) as [string, string];
      // `crossorigin`: a fetch() in cors mode with same-origin credentials, as the page's own call, which the browser requires to hand it the answer.
      const head = queueInfoUrl
        ? before.replace('</head>', () => `<link rel="preload" href="${escapeHtml(queueInfoUrl)}" as="fetch" crossorigin>\n</head>`)
        : before;
      return head + CONFIG_ELEMENT.replace('{}', () => scriptSafeJson(config)) + after;
    },
  };
}

/** JSON that cannot end its `<script>` element early: every `<` is written `\u003c`. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}
