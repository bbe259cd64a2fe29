import fc from 'fast-check';
import { bypassTest, isProtected, protectionTest } from '../../server/domain/protection';
import { normalizeTarget, type NormalizedTarget } from '../../server/domain/request-target';
import { protectedSpelling, rawTarget, PROTECTED } from './support/targets';

const ok = (raw: string): NormalizedTarget => {
  const result = normalizeTarget(raw);
  if (!result.ok) throw new Error(`${raw} was refused: ${result.reason}`);
  return result;
};
const refused = (raw: string): string => {
  const result = normalizeTarget(raw);
  if (result.ok) throw new Error(`${raw} was accepted as ${result.target}`);
  return result.reason;
};

describe('normalizeTarget', () => {
  it.each([
    ['/checkout', '/checkout'],
    ['/check%6Fut', '/checkout'],
    ['/%63heckout?item=1', '/checkout?item=1'],
    ['/./checkout', '/checkout'],
    ['//checkout', '/checkout'],
    ['/x/../checkout', '/checkout'],
    ['/../../checkout', '/checkout'],
    ['/x/%2e%2E/checkout', '/checkout'],
    ['/a/b/..', '/a/'],
    ['/a/.', '/a/'],
    ['/a//', '/a/'],
    ['/checkout/', '/checkout/'],
    ['/CHECKOUT', '/CHECKOUT'],
    ['http://any-host/checkout', '/checkout'],
    ['HTTPS://any-host:8443/checkout?x=1', '/checkout?x=1'],
    ['http://[::1]:8080', '/'],
    ['http://host?x', '/?x'],
    ['/caf%c3%a9', '/caf%C3%A9'],
    ['/a;b%3bc', '/a;b%3Bc'],
    ['/a"<>{}|^`', '/a%22%3C%3E%7B%7D%7C%5E%60'],
    ['/a%25b', '/a%25b'],
    ['/?', '/?'],
    ['/checkout?q=</script>&x=%zz&y=%2F..', '/checkout?q=</script>&x=%zz&y=%2F..'],
  ])('should read %s as %s', (raw, target) => {
    expect(ok(raw).target).toBe(target);
  });

  it.each([
    ['/checkout#x', /fragment/],
    ['/checkout?a=1#x', /fragment/],
    ['/%', /malformed percent-escape/],
    ['/%zz', /malformed percent-escape/],
    ['/check%6', /malformed percent-escape/],
    ['/a%2Fb', /encoded slash/],
    ['/a%5cb', /encoded backslash/],
    ['/a\\b', /backslash/],
    ['/a%00', /control/],
    ['/a%0A', /control/],
    ['/a%7f', /control/],
    ['/%ff', /not UTF-8/],
    ['/a b', /space/],
    ['/caf\u00e9', /outside ASCII/],
    ['*', /asterisk/],
    ['example.com:443', /neither a path/],
    ['checkout', /neither a path/],
    ['ftp://host/checkout', /ftp scheme/],
    ['http://user@host/checkout', /user information/],
    ['http:///checkout', /host/],
    ['', /empty/],
  ])('should refuse %j', (raw, reason) => {
    expect(refused(raw)).toMatch(reason);
  });

  it('should give a fixed point: normalizing a normalized target changes nothing', () => {
    fc.assert(
      fc.property(rawTarget, (raw) => {
        const first = normalizeTarget(raw);
        if (first.ok) expect(normalizeTarget(first.target)).toEqual(first);
      }),
      { numRuns: 2000 },
    );
  });

  it('should never yield an empty, "." or ".." segment, and spell every byte one way', () => {
    fc.assert(
      fc.property(rawTarget, (raw) => {
        const result = normalizeTarget(raw);
        if (!result.ok) return;
        expect(result.path.startsWith('/')).toBe(true);
        expect(result.path).not.toContain('//');
        const segments = result.path.split('/').slice(1);
        if (result.path.endsWith('/')) segments.pop();
        for (const segment of segments) expect(['', '.', '..']).not.toContain(segment);
        // Unreserved characters as they are, escapes in upper case and only for the other bytes.
        expect(result.path).toMatch(/^(?:[A-Za-z0-9\-._~:@!$&'()*+,;=[\]/]|%[0-9A-F]{2})*$/);
        for (const escape of result.path.match(/%[0-9A-F]{2}/g) ?? []) {
          expect(String.fromCharCode(parseInt(escape.slice(1), 16))).not.toMatch(/[A-Za-z0-9\-._~/\\]/);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('should keep the query byte for byte', () => {
    fc.assert(
      fc.property(rawTarget, (raw) => {
        const result = normalizeTarget(raw);
        if (!result.ok) return;
        const mark = raw.indexOf('?');
        expect(result.query).toBe(mark === -1 ? undefined : raw.slice(mark + 1));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the protection test', () => {
  const protects = protectionTest(PROTECTED);

  it('should hold every spelling of a protected path: encodings, dot segments, slashes, case, absolute form', () => {
    fc.assert(
      fc.property(protectedSpelling(PROTECTED), ({ target, fragment, anyBytes }) => {
        const result = normalizeTarget(target);
        if (fragment) {
          expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/fragment/) });
        } else if (result.ok) {
          expect(protects(result.path)).toBe(true);
        } else {
          // Only bytes below the prefix (an encoded slash, a control character, not UTF-8) are refused.
          expect({ anyBytes, reason: result.reason }).toEqual({ anyBytes: true, reason: expect.any(String) });
        }
        expect(isProtected(target, PROTECTED)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('should compare whole segments, and leave other paths alone', () => {
    const at = (path: string) => protects(ok(path).path);

    expect(['/checkout', '/Checkout/', '/checkout/pay', '/shop/PAY/now', '/checkout;jsessionid=1'].map(at)).toEqual([true, true, true, true, true]);
    expect(['/', '/checkouts', '/check', '/shop', '/shop/payment', '/pay/shop', '/api/checkout'].map(at)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it("should also read a path as Java servlet containers do, its ';parameters' cut", () => {
    expect(protects(ok('/x/..;/checkout').path)).toBe(true);
    expect(protects(ok('/;x/checkout').path)).toBe(true);
    expect(protects(ok('/shop;a=1/pay').path)).toBe(true);
    expect(protects(ok('/check%3Bout').path)).toBe(false);
  });

  it('should read a format suffix on the segment that ends a prefix as that prefix, as Rails routes (.:format)', () => {
    const tickets = protectionTest(['/tickets', '/shop/pay']);
    const at = (path: string) => tickets(ok(path).path);
    expect(['/tickets.json', '/TICKETS.HTML', '/tickets.json/1', '/tickets.json;x=1', '/shop/pay.json', '/x/..;/tickets.json'].map(at)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['/ticketsjson', '/tickets-old', '/tickets.', '/shop.json/pay', '/shop/payment.json'].map(at)).toEqual([false, false, false, false, false]);
  });

  it('should let a path by a bypass prefix only when every reading of it is under the bypass', () => {
    const bypasses = bypassTest(['/api']);
    const at = (path: string) => bypasses(ok(path).path);
    expect(['/api', '/api/orders', '/API/x', '/%61pi/x'].map(at)).toEqual([true, true, true, true]);
    // `/api;v=1` reads as `/api` to a Java origin only: a bypass that one origin might not serve is none.
    expect(['/api/..;/checkout', '/api;v=1/orders', '/api.json', '/apis', '/x/api'].map(at)).toEqual([false, false, false, false, false]);
  });

  it('should protect the whole site with PROTECT=/', () => {
    const all = protectionTest(['/']);
    expect(['/', '/anything', '/a/b/'].map((path) => all(ok(path).path))).toEqual([true, true, true]);
  });

  it('should count a refused target as protected', () => {
    expect(isProtected('/checkout#x', PROTECTED)).toBe(true);
    expect(isProtected('/%zz', PROTECTED)).toBe(true);
  });

  it('should refuse a PROTECT prefix the server cannot route', () => {
    expect(() => protectionTest(['/a%2Fb'])).toThrow(/PROTECT: "\/a%2Fb"/);
    expect(() => protectionTest(['/a?b'])).toThrow(/PROTECT/);
  });
});
