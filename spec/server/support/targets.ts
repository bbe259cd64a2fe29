import fc from 'fast-check';

/** The prefixes the pure properties protect (the running server protects `/checkout`, its default). */
export const PROTECTED = ['/checkout', '/shop/pay'];

/** Visible ASCII: what a request target may carry at all. */
const VISIBLE = Array.from({ length: 0x7e - 0x20 }, (_, i) => String.fromCharCode(0x21 + i));

/** `byte` percent-encoded, hex in upper or lower case. */
function escape(byte: number, upper: boolean): string {
  const hex = byte.toString(16).padStart(2, '0');
  return `%${upper ? hex.toUpperCase() : hex}`;
}

/** One character of a protected path, spelled any way an origin that ignores case reads as it. */
function characterSpelling(char: string): fc.Arbitrary<string> {
  const cases = [...new Set([char, char.toLowerCase(), char.toUpperCase()])];
  const spellings = cases.flatMap((c) => [c, escape(c.charCodeAt(0), true), escape(c.charCodeAt(0), false)]);
  return fc.constantFrom(...new Set(spellings));
}

function segmentSpelling(segment: string): fc.Arbitrary<string> {
  return fc.tuple(...[...segment].map(characterSpelling)).map((chars) => chars.join(''));
}

/** Path pieces that resolve to nothing (each follows a "/" and ends with one, or is empty). */
const STAY = ['', '/', './', '%2e/', '%2E/', './/', 'x/../', 'x/%2e%2e/', 'x/.%2E/', 'a/b/../../', '%78/../', 'y//../'];
/** At the root, ".." may also climb: it stays at the root. */
const AT_ROOT = [...STAY, '../', '%2e%2e/', '../../', '.%2e/', '%2E./x/../'];
const noise = (pieces: readonly string[]) => fc.array(fc.constantFrom(...pieces), { maxLength: 3 }).map((p) => p.join(''));

/** A segment of any bytes, every one percent-encoded (some are refused: %2F, controls, not UTF-8). */
const anyBytesSegment = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 255 }), fc.boolean()), { minLength: 1, maxLength: 4 })
  // ".." would climb out of the protected prefix: that path is another one.
  .filter((bytes) => !(bytes.length === 2 && bytes.every(([byte]) => byte === 0x2e)))
  .map((bytes) => bytes.map(([byte, upper]) => escape(byte, upper)).join(''));

/** What may follow the protected prefix without leaving it; `anyBytes` when it may be refused. */
const tail = fc.oneof(
  fc.constantFrom('', '/', '//', '/.', '/./', '/x', '/x/', '/x/..', '/x/../', '/%2e', '/a/b', '/;x=1', '/%7Bid%7D').map((text) => ({ text, anyBytes: false })),
  fc.array(anyBytesSegment, { minLength: 1, maxLength: 2 }).map((segments) => ({ text: `/${segments.join('/')}`, anyBytes: true })),
);

/** `http://host:port` in any case of the scheme, with any host; or the origin form. */
const origin = fc.option(
  fc
    .tuple(
      fc.constantFrom('http', 'HTTP', 'https', 'HtTpS'),
      fc.oneof(fc.domain(), fc.ipV4(), fc.constantFrom('[::1]', 'localhost', 'any-host')),
      fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    )
    .map(([scheme, host, port]) => `${scheme}://${host}${port === undefined ? '' : `:${port}`}`),
  { nil: '' },
);

const query = fc.option(
  fc.string({ unit: fc.constantFrom(...VISIBLE.filter((c) => c !== '#')), maxLength: 12 }).map((q) => `?${q}`),
  { nil: '' },
);
const fragment = fc.option(
  fc.string({ unit: fc.constantFrom(...VISIBLE), maxLength: 6 }).map((f) => `#${f}`),
  { nil: '' },
);

/**
 * A raw target that reaches one of `prefixes`, spelled any way: `fragment` when it carries one,
 * `anyBytes` when what follows the prefix is bytes the server may refuse.
 */
export function protectedSpelling(prefixes: readonly string[]) {
  return fc.constantFrom(...prefixes).chain((prefix) => {
    const segments = prefix.split('/').filter(Boolean);
    const spelled = segments.map((segment) => fc.tuple(noise(STAY), segmentSpelling(segment)).map(([n, s]) => n + s));
    return fc
      .record({
        origin,
        root: noise(AT_ROOT),
        path: fc.tuple(...spelled).map((parts) => parts.join('/')),
        tail,
        query,
        fragment,
      })
      .map((parts) => ({
        target: `${parts.origin}/${parts.root}${parts.path}${parts.tail.text}${parts.query}${parts.fragment}`,
        fragment: parts.fragment !== '',
        anyBytes: parts.tail.anyBytes,
      }));
  });
}

/** Any raw target, biased towards the characters that make paths ambiguous. */
export const rawTarget = fc
  .tuple(
    fc.constantFrom('/', '/', '/', '//', 'http://h', 'HTTPS://a.example:1', 'ftp://h', '', '*'),
    fc.array(
      fc.oneof(
        fc.constantFrom('/', '.', '..', './', '../', '//', 'a', 'B', ';', '?', '#', '\\', '~', '"', 'x=1', '&', '%', '%z', ' '),
        fc.tuple(fc.integer({ min: 0, max: 255 }), fc.boolean()).map(([byte, upper]) => escape(byte, upper)),
        fc.string({ unit: fc.constantFrom(...VISIBLE), maxLength: 3 }),
      ),
      { maxLength: 20 },
    ),
  )
  .map(([start, pieces]) => start + pieces.join(''));
