import { translator, type LanguageJson, type MessageValues } from '@waiting-room/streams/contract';
import type en from '../../locales/en.json';

/** A key of the catalogue (locales/en.json). */
export type MessageKey = keyof typeof en;

/**
 * The page's texts in one language: the messages the server put in the page config (or
 * English, for a server that sent none), written with the contract's translator.
 */
export interface Texts {
  readonly lang: string;
  readonly dir: 'ltr' | 'rtl';
  readonly t: (key: MessageKey, values?: MessageValues) => string;
  /** The language as the server sent it: its choices offer the others. */
  readonly language: LanguageJson;
}

export const textsOf = (language: LanguageJson): Texts => ({
  lang: language.locale,
  dir: language.dir,
  t: translator(language.locale, language.messages),
  language,
});

/** The same texts, the loading block saying that the browser is being checked (while the bot check runs). */
export const checkingTexts = (texts: Texts): Texts => ({ ...texts, t: (key, values) => texts.t(key == 'page.loading' ? 'page.checking' : key, values) });
