import type { IncomingHttpHeaders } from 'node:http';
import fastifyCookie from '@fastify/cookie';
import { LANGUAGE_COOKIE, translator, type LanguageJson, type Messages, type Translate } from '@waiting-room/streams/contract';
import { CATALOGUES, LOCALES, clientMessages, type Locale } from '../../locales';
import { preferredLanguage } from './negotiate';

declare module 'fastify' {
  interface FastifyInstance {
    /** The languages this server speaks (`createFastify`). */
    readonly languages: Languages;
  }
}

/** Where a page gets another language's messages when the visitor switches (`{locale}` in it). */
export const LANGUAGE_ROUTE = '/queue/language/{locale}';

/** One language as the server writes it: in pages, in error pages, in page configs. */
export interface ServedLanguage {
  readonly locale: Locale;
  readonly dir: 'ltr' | 'rtl';
  /** Every message of the locale, a site's overrides applied. */
  readonly t: Translate;
  /** The same messages as they are, for a page the server writes that translates on its own (the verify page). */
  readonly messages: Messages;
  /** What a page config carries: the messages a page shows, and the languages it may switch to. */
  readonly json: LanguageJson;
}

/** What a visitor's language is chosen from. */
export interface LanguageRequest {
  readonly headers: IncomingHttpHeaders;
  /** The room's language, when its operator set one: it replaces the browser's. */
  readonly roomLocale?: Locale;
}

/** The languages a server speaks. */
export interface Languages {
  readonly defaultLocale: Locale;
  /** The locale `tag` names, in any letter case, or undefined when the server does not speak it. */
  find(tag: string): Locale | undefined;
  get(locale: Locale): ServedLanguage;
  /**
   * The visitor's language: the one they chose on the page (the `wr_locale` cookie), else the
   * room's, else the best fit for their browser's Accept-Language, else the default.
   */
  choose(request: LanguageRequest): ServedLanguage;
}

export interface LanguageSettings {
  /** DEFAULT_LOCALE. */
  readonly defaultLocale: Locale;
  /** A site's wording, by locale (MESSAGES_DIR), laid over the catalogue's. */
  readonly overrides: Partial<Record<Locale, Messages>>;
}

/** The languages of the catalogue, each with the site's overrides, built once. */
export function createLanguages(settings: LanguageSettings): Languages {
  const byLowerCase = new Map(LOCALES.map((locale) => [locale.toLowerCase(), locale]));
  const choices = { path: LANGUAGE_ROUTE, languages: LOCALES.map((locale) => ({ locale, name: CATALOGUES[locale].messages['language.name'] })) };
  const served = new Map<Locale, ServedLanguage>();
  for (const locale of LOCALES) {
    const { dir } = CATALOGUES[locale];
    const messages: Messages = { ...CATALOGUES[locale].messages, ...settings.overrides[locale] };
    served.set(locale, { locale, dir, t: translator(locale, messages), messages, json: { locale, dir, messages: clientMessages(messages), choices } });
  }
  const get = (locale: Locale) => served.get(locale) as ServedLanguage;
  const find = (tag: string) => byLowerCase.get(tag.toLowerCase());
  return {
    defaultLocale: settings.defaultLocale,
    find,
    get,
    choose({ headers, roomLocale }) {
      const chosen = headers.cookie ? fastifyCookie.parse(headers.cookie)[LANGUAGE_COOKIE] : undefined;
      const locale =
        (chosen !== undefined ? find(chosen) : undefined) ??
        roomLocale ??
        preferredLanguage(firstValue(headers['accept-language']), LOCALES, settings.defaultLocale);
      return get(locale);
    },
  };
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}
