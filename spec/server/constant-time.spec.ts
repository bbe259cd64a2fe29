import crypto from 'node:crypto';
import { sameText } from '../../server/realtime/signature';

describe('sameText (admin token and signature comparison)', () => {
  afterEach(() => jest.restoreAllMocks());

  it('should tell equal texts from different ones, whatever their lengths', () => {
    expect(sameText('a-long-enough-admin-token-here', 'a-long-enough-admin-token-here')).toBe(true);
    expect(sameText('a-long-enough-admin-token-here', 'a-long-enough-admin-token-herE')).toBe(false);
    expect(sameText('a-long-enough-admin-token-here', 'a')).toBe(false);
    expect(sameText('', 'a-long-enough-admin-token-here')).toBe(false);
    expect(sameText('', '')).toBe(true);
  });

  it('should compare in constant time even when the lengths differ, so a guess learns nothing of the length', () => {
    const compare = jest.spyOn(crypto, 'timingSafeEqual');

    sameText('short', 'a-long-enough-admin-token-here');
    sameText('a-long-enough-admin-token-here-and-more', 'a-long-enough-admin-token-here');

    expect(compare).toHaveBeenCalledTimes(2);
    for (const [left, right] of compare.mock.calls) {
      expect((left as Buffer).length).toBe((right as Buffer).length);
    }
  });
});
