/**
 * Content negotiation: HTML or JSON, and which language. The headers are read by `negotiator`
 * (the parser Express and Koa use: q-values, wildcards, malformed elements); a language is
 * matched to the ones offered by `@formatjs/intl-localematcher` (the best-fit algorithm of
 * `Intl.LocaleMatcher`, on CLDR's data: `zh-HK` finds `zh-Hant`, `pt-AO` finds `pt-PT`, `iw`
 * finds `he`).
 */
import Negotiator from 'negotiator';
import { match } from '@formatjs/intl-localematcher';

/** The media types a client may prefer, in the order that breaks a tie: JSON first. */
const JSON_FIRST = ['application/json', 'text/html'];

/** Most language ranges of one header read: each costs a CLDR lookup, and a browser sends a handful. */
const MOST_LANGUAGES = 16;

/** What the matcher answers when nothing offered is close enough (no language tag is spelt so). */
const NONE = '-';

/**
 * Tags whose best fit is kept, per list of languages offered. The best-fit matcher walks CLDR's
 * distances for every language offered, most of a held arrival's CPU, and browsers send few
 * distinct tags; a client's tags are its own choice, so the kept ones are bounded.
 */
const FITS_KEPT = 1000;
const fits = new WeakMap<readonly string[], Map<string, string>>();

/** The best fit of `tag` among `supported` (`NONE` when nothing is close enough), matched once per tag. */
function bestFit(tag: string, supported: readonly string[]): string {
  let kept = fits.get(supported);
  if (!kept) fits.set(supported, (kept = new Map<string, string>()));
  let found = kept.get(tag);
  if (found === undefined) {
    found = match([tag], supported, NONE, { algorithm: 'best fit' });
    if (kept.size >= FITS_KEPT) kept.clear();
    kept.set(tag, found);
  }
  return found;
}

const preferred = (accept: string | undefined, types: string[]): string | undefined => new Negotiator({ headers: { accept } }).mediaType(types);

/**
 * True when a client asks for HTML rather than JSON: it weighs `text/html` (itself, or `text/*`)
 * above `application/json`. A browser's navigation does (it lists `text/html` first and the
 * wildcard lower); `fetch` (the wildcard alone), API clients (`application/json`) and clients
 * with no Accept do not, and keep JSON: a tie goes to JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  return preferred(accept, JSON_FIRST) === 'text/html';
}

/** True when a client asks for JSON rather than HTML: the doors' one rule (connector/core/client.ts). */
export { prefersJson } from '@waiting-room/connector/core/client';

/**
 * Languages whose readers read another's written form as their own: Norwegian (`no`) is Bokmål or
 * Nynorsk, and every Norwegian reader reads Bokmål (`nb`), the form the catalogue speaks.
 */
const READ_AS: Readonly<Record<string, string>> = { no: 'nb', nn: 'nb' };

/** The language subtag of a well-formed tag, canonical (`iw` → `he`, `in` → `id`, `tl` → `fil`, `nn` → `nb`). */
const languageOf = (tag: string): string => {
  const { language } = new Intl.Locale(Intl.getCanonicalLocales(tag)[0]);
  return READ_AS[language] ?? language;
};

/** True when `tag` is a well-formed BCP 47 language tag. */
export function isLanguageTag(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/**
 * The language of `supported` that fits what the Accept-Language header asks for: the ranges in
 * the order of their weights (a language at q=0 is refused), the first that finds a close enough
 * language offered winning; `fallback` when none does. Malformed ranges and the wildcard are
 * ignored. Each range is matched alone, so that a close match for the first (`en-GB` → `en`)
 * wins over an exact one for the next.
 */
export function preferredLanguage<Language extends string>(acceptLanguage: string | undefined, supported: readonly Language[], fallback: Language): Language {
  if (!acceptLanguage) return fallback;
  const asked = new Negotiator({ headers: { 'accept-language': acceptLanguage } })
    .languages()
    .filter((tag) => tag !== '*' && isLanguageTag(tag))
    .slice(0, MOST_LANGUAGES);
  for (const tag of asked) {
    const found = bestFit(tag, supported);
    // CLDR also offers another language to some readers (Ukrainian → Russian, Kurdish → Turkish,
    // Catalan → Spanish): a visitor gets a language they asked for, or the operator's default.
    if (found !== NONE && languageOf(found) === languageOf(tag)) return found as Language;
  }
  return fallback;
}
