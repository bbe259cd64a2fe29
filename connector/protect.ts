/**
 * The protection test for path `prefixes`, as the gateway reads PROTECT: by whole segments,
 * percent-decoded and case-insensitively (`/checkout` holds `/Checkout/pay`, not `/checkouts`),
 * and also once each segment loses its `;parameters`, as Java servlet containers route. A path
 * that cannot be decoded counts as protected.
 */
export function protectionTest(prefixes: readonly string[]): (pathname: string) => boolean {
  const wanted = prefixes.map((prefix) => {
    if (!prefix.startsWith('/')) throw new TypeError(`protect: "${prefix}" must be a path starting with /.`);
    const keys = segmentKeys(prefix);
    if (keys === undefined) throw new TypeError(`protect: "${prefix}" is not a valid path.`);
    return keys;
  });
  return (pathname) => {
    const keys = segmentKeys(pathname);
    if (keys === undefined) return true;
    const readings = [keys, keys.map((key) => key.split(';')[0] ?? '')];
    return readings.some((reading) => wanted.some((prefix) => prefix.length <= reading.length && prefix.every((key, i) => reading[i] === key)));
  };
}

function segmentKeys(path: string): string[] | undefined {
  try {
    return path
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) => decodeURIComponent(segment).toLowerCase());
  } catch {
    return undefined;
  }
}
