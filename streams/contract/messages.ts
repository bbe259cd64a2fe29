/**
 * Visitor texts as a server hands them to a page or any other client (`PageConfigJson.language`),
 * and the one way to turn a message into text, so that every front end reads a catalogue alike.
 */

/** The plural categories of `Intl.PluralRules` (CLDR). */
export type PluralCategory = 'zero' | 'one' | 'two' | 'few' | 'many' | 'other';

/**
 * One message: a text with `{name}` placeholders, or plural forms keyed by the categories of
 * `Intl.PluralRules` for the language (`other` always among them), chosen by the value `count`.
 */
export type Message = string | { readonly [category in PluralCategory]?: string };

/** A language's messages by key (`page.heading`, `lost.goBack`…). */
export type Messages = { readonly [key: string]: Message };

/** Values for a message's placeholders: numbers are written with `Intl.NumberFormat` of the language. */
export type MessageValues = { readonly [name: string]: string | number };

/** Turns a key and its values into text, in one language. */
export type Translate = (key: string, values?: MessageValues) => string;

/** The name of the cookie that keeps a visitor's choice of language (a locale a server offers). */
export const LANGUAGE_COOKIE = 'wr_locale';

/**
 * The function that writes `messages` of `locale`: the placeholders filled (numbers through
 * `Intl.NumberFormat`), plural forms chosen by `Intl.PluralRules` on `count` (`other` when the
 * category has no form). A missing key is written as itself, so that a gap shows and nothing breaks.
 */
export function translator(locale: string, messages: Messages): Translate {
  const plural = new Intl.PluralRules(locale);
  const number = new Intl.NumberFormat(locale);
  return (key, values = {}) => {
    let message = messages[key] ?? key;
    if (typeof message != 'string') message = message[plural.select(Number(values.count))] ?? message.other ?? key;
    return message.replace(/\{(\w+)\}/g, (whole, name: string) => {
      const value = values[name];
      return typeof value == 'number' ? number.format(value) : (value ?? whole);
    });
  };
}
