/**
 * Browser or API client: who gets the waiting page (or a redirect to it) and who gets JSON, at
 * every door alike.
 *
 * An API client is a request that is not a browser's navigation: it weighs `application/json`
 * above `text/html` in `Accept` (an API client, a single-page app's `fetch` that says so; a tie
 * goes to HTML, and no `Accept` at all means anything, which is HTML), or its browser says it
 * is a `fetch` or the like (`Sec-Fetch-Mode` other than `navigate`). The weighing is the one
 * `negotiator` (Express's and Koa's parser) makes, written here with no dependency so that it
 * runs on any runtime: the most specific matching range gives a type its weight, then the
 * higher weight wins, then the more specific range, then the range listed first.
 */
export type Client = 'browser' | 'api';

/** A request header by its lower-case name. */
export type HeaderOf = (name: string) => string | null | undefined;

export function clientOf(header: HeaderOf): Client {
  const mode = header('sec-fetch-mode');
  if (mode && mode.trim().toLowerCase() !== 'navigate') return 'api';
  return prefersJson(header('accept') ?? undefined) ? 'api' : 'browser';
}

interface Range {
  readonly type: string;
  readonly subtype: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
  readonly order: number;
}

interface Priority {
  readonly q: number;
  readonly specificity: number;
  readonly order: number;
  readonly index: number;
}

/** The two types weighed, in the order that breaks a last tie: HTML first. */
const OFFERED = [
  ['text', 'html'],
  ['application', 'json'],
] as const;

/** True when `accept` weighs JSON above HTML (see above). */
export function prefersJson(accept: string | undefined): boolean {
  const ranges = parseAccept(accept ?? '*/*');
  const priorities = OFFERED.map(([type, subtype], index) => priorityOf(type, subtype, ranges, index)).filter((priority) => priority.q > 0);
  priorities.sort((a, b) => b.q - a.q || b.specificity - a.specificity || a.order - b.order || a.index - b.index);
  return priorities[0]?.index === 1;
}

function parseAccept(accept: string): Range[] {
  const ranges: Range[] = [];
  accept.split(',').forEach((element, order) => {
    const [full = '', ...rest] = element.split(';').map((part) => part.trim());
    const slash = full.indexOf('/');
    if (slash === -1) return;
    const params = new Map<string, string>();
    let q = 1;
    for (const part of rest) {
      const at = part.indexOf('=');
      if (at === -1) continue;
      const name = part.slice(0, at).trim().toLowerCase();
      const value = part
        .slice(at + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if (name === 'q') q = parseFloat(value);
      else params.set(name, value);
    }
    ranges.push({ type: full.slice(0, slash).trim(), subtype: full.slice(slash + 1).trim(), params, q, order });
  });
  return ranges;
}

/** A type's weight: the range that matches it most specifically, then most heavily, then first. */
function priorityOf(type: string, subtype: string, ranges: readonly Range[], index: number): Priority {
  let best: Priority = { q: 0, specificity: 0, order: -1, index };
  for (const range of ranges) {
    let specificity = 0;
    if (range.type.toLowerCase() === type) specificity |= 4;
    else if (range.type !== '*') continue;
    if (range.subtype.toLowerCase() === subtype) specificity |= 2;
    else if (range.subtype !== '*') continue;
    if (range.params.size > 0) {
      // The offered types carry no parameters: only a range whose parameters are all `*` matches.
      if ([...range.params.values()].some((value) => value !== '*' && value !== '')) continue;
      specificity |= 1;
    }
    const candidate = { q: range.q, specificity, order: range.order, index };
    if ((best.specificity - specificity || best.q - candidate.q || best.order - candidate.order) < 0) best = candidate;
  }
  return best;
}
