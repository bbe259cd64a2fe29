/**
 * What makes a catalogue sound, checked against English: the same keys, the same kind of message
 * (text or plural forms), the plural forms the language has, and the same placeholders. The
 * catalogue test runs it on every locale; the server runs it on a site's overrides at start.
 */
import type { Message, Messages } from '@waiting-room/streams/contract';

const PLACEHOLDER = /\{(\w+)\}/g;
/** Markup a text may carry: an HTML tag or a character reference, kept exactly by every translation. */
const MARKUP = /<\/?[A-Za-z][^<>]*>|&(?:#\d+|#x[\da-fA-F]+|\w+);/g;

/** The markup a text carries, in order. */
export function markupOf(text: string): string[] {
  return [...text.matchAll(MARKUP)].map((found) => found[0]);
}

/** The placeholders a text uses, sorted. */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((found) => found[1]))].sort();
}

/** Every placeholder a message uses, over all its forms, sorted. */
function allPlaceholders(message: Message): string[] {
  const texts = typeof message == 'string' ? [message] : Object.values(message);
  return [...new Set(texts.flatMap((text) => placeholdersOf(text ?? '')))].sort();
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((value, i) => value === b[i]);

/**
 * The problems of `messages` (the catalogue of `locale`) against `reference` (English), each a
 * sentence naming the key. `partial`: a site's overrides, which may leave keys out.
 */
export function catalogueProblems(locale: string, messages: unknown, reference: Messages, partial = false): string[] {
  if (typeof messages !== 'object' || messages === null || Array.isArray(messages)) return [`${locale}: must be a JSON object of messages`];
  const given = messages as Record<string, unknown>;
  const problems: string[] = [];
  const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories.slice().sort();
  for (const key of Object.keys(reference)) {
    if (!(key in given) && !partial) problems.push(`${locale}: "${key}" is missing`);
  }
  for (const [key, message] of Object.entries(given)) {
    const english = reference[key];
    if (english === undefined) {
      problems.push(`${locale}: "${key}" is not a message (English has no such key)`);
      continue;
    }
    const at = `${locale}: "${key}"`;
    if (typeof english == 'string') {
      if (typeof message != 'string' || message.trim() === '') {
        problems.push(`${at} must be a non-empty text`);
        continue;
      }
      if (!same(placeholdersOf(message), placeholdersOf(english))) {
        problems.push(`${at} has the placeholders {${placeholdersOf(message).join('}, {')}}; English has {${placeholdersOf(english).join('}, {')}}`);
      }
      if (!same(markupOf(message), markupOf(english)))
        problems.push(`${at} has the markup ${JSON.stringify(markupOf(message))}; English has ${JSON.stringify(markupOf(english))}`);
      continue;
    }
    if (typeof message != 'object' || message === null || Array.isArray(message)) {
      problems.push(`${at} must be plural forms: {${categories.join(', ')}}`);
      continue;
    }
    const forms = message as Record<string, unknown>;
    if (!same(Object.keys(forms).sort(), categories)) {
      problems.push(`${at} has the plural forms {${Object.keys(forms).sort().join(', ')}}; ${locale} has {${categories.join(', ')}}`);
    }
    if (!Object.values(forms).every((text) => typeof text == 'string' && text.trim() !== '')) {
      problems.push(`${at}: every plural form must be a non-empty text`);
      continue;
    }
    // A form may leave the number out ("one minute", Arabic's dual); `other` says everything.
    const wanted = allPlaceholders(english);
    const other = typeof forms.other == 'string' ? placeholdersOf(forms.other) : [];
    if (!same(other, wanted) || !allPlaceholders(forms as Message).every((name) => wanted.includes(name))) {
      problems.push(
        `${at} has the placeholders {${allPlaceholders(forms).join('}, {')}} (other: {${other.join('}, {')}}); English has {${wanted.join('}, {')}}`,
      );
    }
    const englishMarkup = markupOf(english.other ?? '');
    if (!Object.values(forms).every((text) => same(markupOf(text as string), englishMarkup))) {
      problems.push(`${at} has other markup than English's ${JSON.stringify(englishMarkup)}`);
    }
  }
  return problems;
}

/**
 * Texts a language writes exactly as English does, by language: each a word that is the same
 * word there, not English left over.
 */
export const SAME_AS_ENGLISH: Readonly<Record<string, readonly string[]>> = {
  ca: ['Error {status}'],
  es: ['Error {status}'],
  // Filipino writes the web's words as they are borrowed (error, page, browser, request).
  fil: ['Error {status}'],
};

/**
 * Latin-letter words a catalogue written in another script keeps: the names of standards and of
 * things a browser shows by these names, in any letter case. Any other Latin word there is English left untranslated.
 */
export const LATIN_WORDS_KEPT: readonly string[] = ['sha-256', 'hmac-sha256', 'javascript', 'cookie', 'cookies', 'id', 'qr'];

const LATIN_WORD = /[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*/g;

/**
 * What of `messages` (the complete catalogue of `locale`) is still English: a text identical to
 * English's (outside `SAME_AS_ENGLISH`), and, in a language not written in Latin letters, any
 * Latin word outside `LATIN_WORDS_KEPT`. Not for a site's overrides, which may keep English on purpose.
 */
export function untranslated(locale: string, messages: Messages, reference: Messages): string[] {
  const { language } = new Intl.Locale(locale);
  if (language === 'en') return [];
  const allowed = SAME_AS_ENGLISH[language] ?? [];
  const latin = new Intl.Locale(locale).maximize().script === 'Latn';
  const problems: string[] = [];
  for (const [key, message] of Object.entries(messages)) {
    const english = reference[key];
    if (english === undefined) continue;
    const texts = typeof message == 'string' ? [message] : Object.values(message);
    const englishTexts = new Set(typeof english == 'string' ? [english] : Object.values(english));
    const same = texts.filter((text) => text !== undefined && englishTexts.has(text) && !allowed.includes(text));
    if (same.length > 0) problems.push(`${locale}: "${key}" is the same as English: ${JSON.stringify(same[0])}`);
    if (latin) continue;
    const words = texts.flatMap((text) => [...(text ?? '').replace(PLACEHOLDER, '').matchAll(LATIN_WORD)].map((found) => found[0]));
    const foreign = words.filter((word) => !LATIN_WORDS_KEPT.includes(word.toLowerCase()));
    if (foreign.length > 0) problems.push(`${locale}: "${key}" has Latin words left: ${foreign.join(', ')}`);
  }
  return problems;
}
