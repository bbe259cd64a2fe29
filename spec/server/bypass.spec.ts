import { createHmac } from 'node:crypto';
import { bypassToken, hasValidBypass } from '../../server/http/gateway/bypass';

const SECRET = 'a-bypass-secret-of-more-than-32-characters';
const NOW = Date.UTC(2030, 0, 1);

/** The signature of `v1.<expires>`, as the documented openssl line makes it. */
const signatureOf = (expires: number) => createHmac('sha256', SECRET).update(`v1.${expires}`).digest('base64url');

describe('the signed bypass token', () => {
  const expires = NOW / 1000 + 3600;

  it('should take the token as minted, and as the documented openssl line writes it', () => {
    expect(bypassToken(SECRET, expires * 1000)).toBe(`v1.${expires}.${signatureOf(expires)}`);
    expect(hasValidBypass(`v1.${expires}.${signatureOf(expires)}`, SECRET, NOW)).toBe(true);
  });

  it.each([
    ['a leading zero', `0${expires}`],
    ['two leading zeros', `00${expires}`],
  ])('should refuse an expiry written with %s: one signature has one spelling', (_what, spelled) => {
    expect(Number(spelled)).toBe(expires);
    expect(hasValidBypass(`v1.${spelled}.${signatureOf(expires)}`, SECRET, NOW)).toBe(false);
  });
});
