/**
 * Intl formatters take milliseconds to build (more on a slow phone), so each is built once per
 * language; the first of a page also loads the language's locale data, which the page's inline
 * script (src/warm-intl.ts) loads with `prepareFormats` while the page's scripts are on their way.
 */
const counts = new Map<string, Intl.NumberFormat>();
const times = new Map<string, Intl.DateTimeFormat>();

const countFormat = (lang: string) => counts.get(lang) ?? counts.set(lang, new Intl.NumberFormat(lang)).get(lang)!;
const timeFormat = (lang: string) =>
  times.get(lang) ?? times.set(lang, new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit', second: '2-digit' })).get(lang)!;

/** A count in the visitor's language (12 345 in French, 12,345 in English). */
export const formatCount = (lang: string, value: number): string => countFormat(lang).format(value);

/** A time of day in the visitor's language. */
export const formatTime = (lang: string, epochMs: number): string => timeFormat(lang).format(epochMs);

/** Builds the formatters of `lang` now, so that the first position shows without waiting for them (or their locale data). */
export function prepareFormats(lang: string): void {
  countFormat(lang);
  timeFormat(lang);
}
