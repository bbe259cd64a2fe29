/**
 * What makes a catalogue sound, checked against English: the same keys, the same kind of message
 * (text or plural forms), the plural forms the language has, and the same placeholders. The
 * catalogue test runs it on every locale; the server runs it on a site's overrides at start.
 */
import type { Message, Messages } from '@waiting-room/streams/contract';

const PLACEHOLDER = /\{(\w+)\}/g;

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
  }
  return problems;
}
