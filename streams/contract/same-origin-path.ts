/**
 * The WHATWG URL class, in every browser and in Node, Deno and Bun alike: the one thing of its
 * environment the contract uses, declared here so that it needs neither the DOM's types nor Node's.
 */
declare const URL: new (url: string, base: string) => { readonly origin: string; readonly pathname: string; readonly search: string; readonly hash: string };

/** The origin of an absolute http(s) address (`https://shop.example/cart?x#y` → `https://shop.example`), or null. */
export function originOf(address: unknown): string | null {
  if (typeof address != 'string' || !/^https?:\/\/[^/?#\\]/i.test(address)) return null;
  try {
    return new URL(address, address).origin;
  } catch {
    return null;
  }
}

/**
 * Returns `raw` as a path on `origin` (path, query and hash), or null when it is not one:
 * another origin, a scheme-relative `//host` or `/\host`, `javascript:`, `data:`, a relative
 * path, or any control character (browsers drop tabs and newlines, which would turn
 * `/\t/evil.example` into `//evil.example`). The normalised path is checked again, because
 * dot segments can fold `/.//evil.example` into `//evil.example`.
 */
export function toSameOriginPath(raw: unknown, origin: string): string | null {
  // eslint-disable-next-line no-control-regex -- control characters are what this test looks for
  if (typeof raw != 'string' || /[\0-\x1f\x7f]/.test(raw)) return null;
  if (!raw.startsWith('/') && !raw.startsWith(origin + '/')) return null;
  try {
    const url = new URL(raw, origin);
    const path = url.pathname + url.search + url.hash;
    return url.origin == origin && !/^\/[/\\]/.test(path) && !/^\/[/\\]/.test(raw) ? path : null;
  } catch {
    return null;
  }
}
