/**
 * Content negotiation for error answers: HTML or JSON, and which language.
 *
 * Kept small and on its own so that a maintained negotiator (`@fastify/accept-negotiator`)
 * can replace it without touching its callers: both functions take the header as received.
 */

/** One element of an Accept-style header, with its weight (RFC 9110 §12.4.2). */
interface Weighted {
  /** The media range or language range, lower-cased, parameters other than q dropped. */
  readonly value: string;
  readonly q: number;
}

const QVALUE = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The elements of an Accept, Accept-Language… header in the order sent. An element whose
 * q is malformed is dropped, as one the client did not mean to send.
 */
export function parseWeighted(header: string | undefined): Weighted[] {
  if (!header) return [];
  const elements: Weighted[] = [];
  for (const element of header.split(',')) {
    const [value = '', ...params] = element.split(';').map((part) => part.trim());
    if (value === '') continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const [name = '', raw = ''] = param.split('=').map((part) => part.trim());
      if (name.toLowerCase() !== 'q') continue;
      valid = QVALUE.test(raw);
      q = Number(raw);
    }
    if (valid) elements.push({ value: value.toLowerCase(), q });
  }
  return elements;
}

/** The weight `ranges` give `type/subtype`: the most specific range that matches wins. */
function weightOf(ranges: readonly Weighted[], type: string, subtype: string): { q: number; exact: boolean } {
  let best: { q: number; specificity: number } = { q: 0, specificity: -1 };
  for (const { value, q } of ranges) {
    const specificity =
      value === `${type}/${subtype}` ? 2 : value === `${type}/*` ? 1 : value === '*/*' ? 0 : -1;
    if (specificity > best.specificity) best = { q, specificity };
  }
  return { q: best.q, exact: best.specificity === 2 };
}

/**
 * True when a client asks for HTML rather than JSON: it names `text/html` itself and weighs it
 * above `application/json`. A browser's navigation does (it lists `text/html` first and the
 * wildcard lower); `fetch` (the wildcard alone), API clients (`application/json`) and clients
 * with no Accept do not, and keep JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  const ranges = parseWeighted(accept);
  const html = weightOf(ranges, 'text', 'html');
  return html.exact && html.q > 0 && html.q > weightOf(ranges, 'application', 'json').q;
}

/**
 * The language of `supported` the Accept-Language header weighs highest (by primary
 * language: `fr-CA` counts as `fr`), or `fallback` when it names none of them.
 */
export function preferredLanguage<Language extends string>(
  acceptLanguage: string | undefined,
  supported: readonly Language[],
  fallback: Language,
): Language {
  const ranges = parseWeighted(acceptLanguage)
    .map((range, index) => ({ ...range, index }))
    .filter((range) => range.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { value } of ranges) {
    if (value === '*') return fallback;
    const language = primaryLanguage(value);
    const match = supported.find((candidate) => candidate === language);
    if (match !== undefined) return match;
  }
  return fallback;
}

function primaryLanguage(tag: string): string | undefined {
  try {
    return new Intl.Locale(tag).language;
  } catch {
    return undefined;
  }
}

/**
 * True when a client asks for JSON rather than HTML: it names `application/json` itself and
 * weighs it above `text/html` (an API client, a single-page app's `fetch` that says so).
 */
export function prefersJson(accept: string | undefined): boolean {
  const ranges = parseWeighted(accept);
  const json = weightOf(ranges, 'application', 'json');
  return json.exact && json.q > 0 && json.q > weightOf(ranges, 'text', 'html').q;
}
