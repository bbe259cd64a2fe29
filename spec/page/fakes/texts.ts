import type { LanguageJson } from '@waiting-room/streams/contract';
import { CATALOGUES, LOCALES, clientMessages, type Locale } from '../../../locales';
import { textsOf, type Texts } from '../../../src/i18n/texts';

/** A language as our server puts it in the page config: its page messages, and every choice. */
export function languageOf(locale: Locale, path = '/queue/language/{locale}'): LanguageJson {
  return {
    locale,
    dir: CATALOGUES[locale].dir,
    messages: clientMessages(CATALOGUES[locale].messages),
    choices: { path, languages: LOCALES.map((each) => ({ locale: each, name: CATALOGUES[each].messages['language.name'] })) },
  };
}

export const textsFor = (locale: Locale): Texts => textsOf(languageOf(locale));

export const ENGLISH = textsFor('en');
export const FRENCH = textsFor('fr');
