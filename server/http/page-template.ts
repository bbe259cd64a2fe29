import { readFileSync } from 'node:fs';
import { LOCALES, type Locale } from '../../locales';
import {
  PAGE_BLOCKS,
  PAGE_BLOCK_ATTRIBUTE,
  PAGE_WORDS_ELEMENT_ID,
  PAGE_WORD_ATTRIBUTE,
  REQUIRED_BLOCKS,
  type PageBlock,
  type PageWords,
} from '../../src/view/page-blocks';
import type { RoomPageConfig, ServerConfig } from '../process/config';
import { escapeHtml } from './html';
import { readTemplate } from './template-html';
import { PageTemplateError, pageProblem, scriptSafeJson, waitingPageOf, type BuiltWaitingPage, type WaitingPage } from './page';

/** What a room asks of its template: the blocks it shows besides the required ones, and the language its words fall back to. */
export interface RoomPageNeeds {
  readonly room: string;
  /** Its bot check may be on (the room's or one of its events'): the template places `bot-check`. */
  readonly botCheck: boolean;
  /** It has scheduled events: the template places `countdown`. */
  readonly events: boolean;
  /** One of its events draws its pre-queue: the template places `verify`. */
  readonly draw: boolean;
  /** Where a word missing in the visitor's language is taken from: the room's language, or English. */
  readonly fallback: Locale;
}

/** Any `{{…}}` in a template: each must be a placeholder it knows. */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const KNOWN_PLACEHOLDER = /^(block|word):([a-z][a-z0-9-]*)$/;

/** The tags the page's own parts go by, each once in a template. */
const TAGS: ReadonlyArray<readonly [string, RegExp]> = [
  ['<html>', /<html\b/gi],
  ['<head>', /<head\b/gi],
  ['</head>', /<\/head>/gi],
  ['<body>', /<body\b/gi],
  ['</body>', /<\/body>/gi],
];

/**
 * Checks a room's template at start and writes it in every language with the built page's parts:
 * its head (styles, preloads), its live region and notice without JavaScript after `<body>`, each
 * `{{block:…}}` an element the page renders that block into (the loading block already in its
 * own, as on the default page), each `{{word:…}}` the operator's word in the page's language,
 * escaped, and the page's config and scripts before `</body>`. Throws a PageTemplateError naming
 * the room and what is wrong.
 */
export function loadRoomPage(built: BuiltWaitingPage, page: RoomPageConfig, needs: RoomPageNeeds): WaitingPage {
  const fail = (problem: string): never => {
    throw new PageTemplateError(`Room "${needs.room}": its page template ${page.template} ${problem}.`);
  };
  let template = '';
  try {
    template = readFileSync(page.template, 'utf8');
  } catch (error) {
    fail(`cannot be read (${(error as Error).message})`);
  }
  for (const [tag, pattern] of TAGS) if ((template.match(pattern) ?? []).length !== 1) fail(`must hold exactly one ${tag}`);
  const blocks = new Set<PageBlock>();
  for (const [placeholder, inside] of template.matchAll(PLACEHOLDER)) {
    const [, kind, name] = KNOWN_PLACEHOLDER.exec(inside) ?? fail(`holds ${placeholder}, which is no {{block:name}} or {{word:name}}`);
    if (kind === 'word') {
      if (page.words[needs.fallback]?.[name] === undefined) fail(`names the word "${name}", which its words in ${needs.fallback} do not give`);
    } else {
      if (!(PAGE_BLOCKS as readonly string[]).includes(name)) fail(`names the block "${name}", unknown: the blocks are ${PAGE_BLOCKS.join(', ')}`);
      if (blocks.has(name as PageBlock)) fail(`places the block "${name}" twice`);
      blocks.add(name as PageBlock);
    }
  }
  const needed: ReadonlyArray<readonly [PageBlock, string]> = [
    ...REQUIRED_BLOCKS.map((block) => [block, 'every page shows it'] as const),
    ...(needs.botCheck ? [['bot-check', 'the room has a bot check'] as const] : []),
    ...(needs.events ? [['countdown', 'the room has scheduled events'] as const] : []),
    ...(needs.draw ? [['verify', 'an event of the room draws its line'] as const] : []),
  ];
  for (const [block, why] of needed) if (!blocks.has(block)) fail(`lacks the block "${block}" ({{block:${block}}}): ${why}`);
  const localized = new Map(
    LOCALES.map((locale) => {
      const written = writeTemplate(template, built.localized(locale), page.words, [locale, needs.fallback]);
      // Read as a browser would, once each language's words are placed: a word may make a tag.
      if ('problem' in written) fail(`${written.problem}, once its words in ${locale} are placed`);
      return [locale, (written as { html: string }).html] as const;
    }),
  );
  for (const html of localized.values()) {
    const problem = pageProblem(html);
    if (problem !== undefined) fail(`makes a page without ${problem}`);
  }
  return waitingPageOf(localized);
}

/** The pieces of the built page (in one language) a template is written with. */
function builtParts(html: string) {
  const between = (from: string, to: string, inclusive = false): string => {
    const start = html.indexOf(from);
    const end = html.indexOf(to, start);
    if (start < 0 || end < 0) throw new PageTemplateError(`The built waiting page lacks ${from}…${to}; rebuild it with \`node build.mjs\`.`);
    return html.slice(start, end + (inclusive ? to.length : 0));
  };
  return {
    html: between('<html', '>', true),
    head: between('<link rel="stylesheet"', '</head>'),
    announcer: between('<p class="wr-sr"', '</p>', true),
    loading: between('<section class="wr-block wr-loading"', '</section>', true),
    noscript: between('<noscript>\n<p class="wr-block wr-noscript">', '</noscript>', true),
    tail: between('<script id="waiting-room-config"', '</body>'),
  };
}

/**
 * The template in one language: placeholders first (one pass: a word never becomes a placeholder),
 * then, where the parser found the document's tags, the page's own parts. A word in text is an
 * element of its own, with the words of every language in the page, so that a switch of language
 * changes it too; in a tag, a `<title>` or a `<style>` it is the text alone. What the parser
 * refuses in the template with its words (`readTemplate`) is answered instead.
 */
function writeTemplate(template: string, built: string, words: RoomPageConfig['words'], languages: readonly Locale[]): { html: string } | { problem: string } {
  const parts = builtParts(built);
  const filled = template.replace(PLACEHOLDER, (_placeholder, inside: string, offset: number) => {
    const [, kind, name] = KNOWN_PLACEHOLDER.exec(inside) as RegExpExecArray;
    if (kind === 'block') return `<div ${PAGE_BLOCK_ATTRIBUTE}="${name}">${name === 'loading' ? `\n${parts.loading}\n` : ''}</div>`;
    const word = escapeHtml(languages.map((locale) => words[locale]?.[name]).find((given) => given !== undefined) ?? '');
    return inText(template, offset) ? `<span ${PAGE_WORD_ATTRIBUTE}="${name}">${word}</span>` : word;
  });
  const read = readTemplate(filled);
  if ('problem' in read) return read;
  const { html, headStart, bodyStart, bodyEnd } = read.tags;
  const pageWords: PageWords = { words, fallback: languages[languages.length - 1] };
  const wordsElement = `<script id="${PAGE_WORDS_ELEMENT_ID}" type="application/json">${scriptSafeJson(pageWords)}</script>\n`;
  return {
    html:
      filled.slice(0, html[0]) +
      parts.html +
      filled.slice(html[1], headStart) +
      // First in the head, so that the operator's styles come after the page's and win.
      `\n${parts.head}` +
      filled.slice(headStart, bodyStart) +
      `\n<div id="waiting-room" class="wr-root">${parts.announcer}</div>\n${parts.noscript}` +
      filled.slice(bodyStart, bodyEnd) +
      wordsElement +
      parts.tail +
      filled.slice(bodyEnd),
  };
}

/** Whether `offset` of `html` is in text: not inside a tag, nor in a `<title>` or `<style>` element, whose text is not markup. */
function inText(html: string, offset: number): boolean {
  const before = html.slice(0, offset).toLowerCase();
  if (before.lastIndexOf('<') > before.lastIndexOf('>')) return false;
  return ['title', 'style'].every((element) => before.lastIndexOf(`<${element}`) <= before.lastIndexOf(`</${element}`));
}

/**
 * Each room's own page, by room name, checked at start (a room without one shows the default
 * page): what its template must place follows from the room's bot check and its declared events.
 */
export function loadRoomPages(built: BuiltWaitingPage, config: Pick<ServerConfig, 'rooms' | 'events'>): ReadonlyMap<string, WaitingPage> {
  const pages = new Map<string, WaitingPage>();
  for (const room of config.rooms) {
    if (room.page === undefined) continue;
    const events = config.events.filter((event) => event.room === room.name);
    pages.set(
      room.name,
      loadRoomPage(built, room.page, {
        room: room.name,
        botCheck: room.botChallenge === 'pow' || events.some((event) => event.botChallenge === 'pow'),
        events: events.length > 0,
        draw: events.some((event) => event.shuffleAtEventStart),
        fallback: room.locale ?? 'en',
      }),
    );
  }
  return pages;
}
