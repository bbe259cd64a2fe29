/** The query parameters that carried the held request to the page (spec section 2). */
export const HELD_REQUEST_PARAMS: readonly string[] = ['position', 'uri', 'method'];

const paramName = (part: string): string => {
  const name = part.split('=')[0].replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
};

/**
 * Returns `url` without the held-request parameters. Every other parameter is kept byte for
 * byte (no re-encoding), and so is the hash.
 */
export function withoutHeldRequestParams(url: URL): string {
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((part) => part && !HELD_REQUEST_PARAMS.includes(paramName(part)));
  return url.pathname + (kept.length ? '?' + kept.join('&') : '') + url.hash;
}

/** On load: removes `position`, `uri` and `method` from the address bar, without a navigation. */
export function cleanAddressBar(location: Location, history: History): void {
  const url = new URL(location.href);
  const cleaned = withoutHeldRequestParams(url);
  if (cleaned != url.pathname + url.search + url.hash) history.replaceState(history.state, '', cleaned);
}
