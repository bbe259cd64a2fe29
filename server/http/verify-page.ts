import type { LanguageJson, Messages } from '@waiting-room/streams/contract';
import { ENGLISH } from '../../locales';
import { escapeHtml } from './html';
import type { ServedLanguage } from './languages';
import { scriptSafeJson } from './page';

/**
 * The element the verify page reads its texts from (`src/verify/texts.ts` names it alike): the
 * build leaves it empty, the server writes the visitor's language in it.
 */
export const VERIFY_LANGUAGE_ID = 'verify-language';
const LANGUAGE_ELEMENT = `<script id="${VERIFY_LANGUAGE_ID}" type="application/json">{}</script>`;

/** The verify page's own messages (`verify.*`, a namespace the waiting page's config leaves out). */
export function verifyMessages(messages: Messages): Messages {
  return Object.fromEntries(Object.entries(messages).filter(([key]) => key.startsWith('verify.')));
}

/**
 * What the built verify page says before its script runs, in English (public/verify.html), and
 * the message each is in the visitor's language: the page's language and direction, its title,
 * the first line shown and the notice shown without JavaScript.
 */
const LOCALIZED: ReadonlyArray<{ readonly english: string; readonly localized: (language: ServedLanguage) => string }> = [
  { english: '<html lang="en">', localized: ({ locale, dir }) => `<html lang="${locale}" dir="${dir}">` },
  ...(['verify.title', 'verify.reading', 'verify.noscript'] as const).map((key) => ({
    english: `>${escapeHtml(ENGLISH[key])}<`,
    localized: ({ t }: ServedLanguage) => `>${escapeHtml(t(key))}<`,
  })),
  {
    english: LANGUAGE_ELEMENT,
    localized: ({ locale, dir, messages }) => {
      const language: LanguageJson = { locale, dir, messages: verifyMessages(messages) };
      return LANGUAGE_ELEMENT.replace('{}', () => scriptSafeJson(language));
    },
  },
];

/**
 * The built verify page in the visitor's language, each language written once. A page built
 * before it had its texts (no English text or element to replace) is served as it is.
 */
export function verifyPageWriter(): (html: string, language: ServedLanguage) => string {
  const written = new Map<string, { readonly html: string; readonly page: string }>();
  return (html, language) => {
    const kept = written.get(language.locale);
    if (kept?.html === html) return kept.page;
    const page = LOCALIZED.reduce((each, { english, localized }) => each.split(english).join(localized(language)), html);
    written.set(language.locale, { html, page });
    return page;
  };
}
