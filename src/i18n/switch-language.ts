/**
 * A visitor's switch of language, from a file of its own (loaded when they pick one): it imports
 * nothing the page bundles, so the cookie's name is written here as the contract's
 * `LANGUAGE_COOKIE` says (a test checks they agree).
 */
import type { LanguageJson } from '@waiting-room/streams/contract';
import type { FetchLike } from '../adapters/http';

export const COOKIE = 'wr_locale';

/** How long a visitor's choice of language is kept: a year. */
const KEPT_SECONDS = 365 * 24 * 3600;

/**
 * Fetches `locale`'s texts from the path the config offers (`language.choices.path`), keeps the
 * choice in the cookie the server reads for every later page (error pages included), and sets
 * the document's language and direction. The place, the connection and the held request are
 * untouched: nothing reloads. Fails when the answer is not a language.
 */
export const switchLanguage = async (current: LanguageJson, locale: string, fetch: FetchLike, doc: Document): Promise<LanguageJson> => {
  const path = (current.choices?.path ?? '').replace('{locale}', encodeURIComponent(locale));
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  const language = (await response.json()) as LanguageJson;
  if (!response.ok || typeof language?.locale != 'string' || typeof language.messages != 'object')
    throw new Error(`no language at ${path} (${response.status})`);
  const secure = doc.location?.protocol == 'https:' ? '; secure' : '';
  doc.cookie = `${COOKIE}=${encodeURIComponent(language.locale)}; path=/; max-age=${KEPT_SECONDS}; samesite=lax${secure}`;
  doc.documentElement.lang = language.locale;
  doc.documentElement.dir = language.dir;
  return { ...language, choices: language.choices ?? current.choices };
};

export type SwitchLanguage = typeof switchLanguage;
