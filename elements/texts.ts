import { translator, type LanguageJson, type Message, type MessageValues } from '@waiting-room/streams/contract';
// Named imports only: the bundler keeps these messages of the catalogue and leaves the rest out.
import {
  'element.announce' as announce,
  'element.failed' as failed,
  'element.heading' as heading,
  'element.keepOpen' as keepOpen,
  'element.lost' as lost,
  'element.turn' as turn,
  'handoff.moved.heading' as movedHeading,
  'page.connectionLost' as connectionLost,
  'page.estimated' as estimated,
  'page.estimatedSoon' as estimatedSoon,
  'page.loading' as loading,
  'page.pollFailed' as pollFailed,
  'page.position' as position,
  'page.updated' as updated,
} from '../locales/en.json';

/**
 * Every message `<waiting-room-status>` shows, by its key in the catalogue (locales/): its own
 * (`element.*`) and those it says as the waiting page does (`page.*`).
 */
export const ELEMENT_MESSAGES = {
  'element.announce': announce,
  'element.failed': failed,
  'element.heading': heading,
  'element.keepOpen': keepOpen,
  'element.lost': lost,
  'element.turn': turn,
  'handoff.moved.heading': movedHeading,
  'page.connectionLost': connectionLost,
  'page.estimated': estimated,
  'page.estimatedSoon': estimatedSoon,
  'page.loading': loading,
  'page.pollFailed': pollFailed,
  'page.position': position,
  'page.updated': updated,
} satisfies Record<string, Message>;

export type ElementKey = keyof typeof ELEMENT_MESSAGES;

/**
 * English, built in: what the element says when no held answer has brought the visitor's language
 * (a server that sends none, or a `progress$` of the site's own). The other languages come with
 * the page config, so the bundle carries none of them.
 */
export const ENGLISH: LanguageJson = { locale: 'en', dir: 'ltr', messages: ELEMENT_MESSAGES };

/** The element's texts in one language, written with the contract's translator. */
export interface Texts {
  readonly lang: string;
  readonly dir: 'ltr' | 'rtl';
  readonly t: (key: ElementKey, values?: MessageValues) => string;
  /** A count as the language writes it (12.345 in German). */
  readonly count: (value: number) => string;
  /** A time of day as the language writes it. */
  readonly time: (epochMs: number) => string;
}

const made = new WeakMap<LanguageJson, Texts>();

/** The texts of `language`, made once for each (Intl formatters are slow to build). */
export function textsOf(language: LanguageJson): Texts {
  const known = made.get(language);
  if (known) return known;
  const { locale } = language;
  const count = new Intl.NumberFormat(locale);
  const time = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const texts: Texts = {
    lang: locale,
    dir: language.dir,
    t: translator(locale, language.messages),
    count: (value) => count.format(value),
    time: (epochMs) => time.format(epochMs),
  };
  made.set(language, texts);
  return texts;
}

/** The primary language subtag, lower case: `pt` of `pt-BR`. */
const primary = (tag: string) => tag.split('-')[0]?.toLowerCase() ?? '';

/**
 * Among `languages`, the one for the tag `wanted` (the element's `lang`, or the browser's): the
 * same tag, else the same language (`de` for `de-AT`); the first of them (English) otherwise.
 */
export function languageFor(wanted: string, languages: readonly [LanguageJson, ...LanguageJson[]]): LanguageJson {
  const tag = wanted.toLowerCase();
  return languages.find((each) => each.locale.toLowerCase() == tag) ?? languages.find((each) => primary(each.locale) == primary(tag)) ?? languages[0];
}
