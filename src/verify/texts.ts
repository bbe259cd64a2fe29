import { translator, type LanguageJson, type MessageValues } from '@waiting-room/streams/contract';
import type { MessageKey } from '../i18n/texts';

/**
 * The element the server writes the visitor's language in (`server/http/verify-page.ts` names it
 * alike): the catalogue's `verify.*` messages, in the language chosen as for every page.
 */
export const LANGUAGE_ELEMENT_ID = 'verify-language';

/** The verify page's texts in one language, written with the contract's translator. */
export interface VerifyTexts {
  readonly lang: string;
  readonly dir: 'ltr' | 'rtl';
  readonly t: (key: MessageKey, values?: MessageValues) => string;
}

export const verifyTextsOf = ({ locale, dir, messages }: LanguageJson): VerifyTexts => ({ lang: locale, dir, t: translator(locale, messages) });

/**
 * The language the server wrote in the page. Without one (a page served as a plain file), the
 * keys show as they are: nothing breaks, and the check itself needs no text.
 */
export function readVerifyTexts(doc: Document): VerifyTexts {
  let language: Partial<LanguageJson> | null = null;
  try {
    language = JSON.parse(doc.getElementById(LANGUAGE_ELEMENT_ID)?.textContent ?? 'null') as Partial<LanguageJson> | null;
  } catch {
    // Shown by its keys below.
  }
  const sound = typeof language?.locale == 'string' && typeof language.messages == 'object' && language.messages !== null;
  return verifyTextsOf(sound ? (language as LanguageJson) : { locale: doc.documentElement.lang || 'en', dir: 'ltr', messages: {} });
}
