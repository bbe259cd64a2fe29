import { match } from '@formatjs/intl-localematcher';
import { preferredLanguage } from '../../server/http/negotiate';

jest.mock('@formatjs/intl-localematcher', () => {
  const actual = jest.requireActual<typeof import('@formatjs/intl-localematcher')>('@formatjs/intl-localematcher');
  return { ...actual, match: jest.fn(actual.match) };
});

const matcher = match as jest.MockedFunction<typeof match>;

describe('preferredLanguage, the best fit kept per tag', () => {
  beforeEach(() => matcher.mockClear());

  it('should match a tag once for the same languages offered, and answer the same each time', () => {
    const offered = ['en', 'fr', 'pt-PT', 'zh-Hant'];

    const answers = ['fr-CA,en;q=0.5', 'fr-CA', 'fr-CA;q=0.9', 'pt-AO'].map((header) => preferredLanguage(header, offered, 'en'));

    expect(answers).toEqual(['fr', 'fr', 'fr', 'pt-PT']);
    expect(matcher.mock.calls.map(([tags]) => tags)).toEqual([['fr-CA'], ['pt-AO']]);
  });

  it('should match again for another list of languages offered', () => {
    expect(preferredLanguage('zh-HK', ['en', 'zh-Hant'], 'en')).toBe('zh-Hant');
    expect(preferredLanguage('zh-HK', ['en', 'zh-Hans'], 'en')).toBe('zh-Hans');
    expect(matcher).toHaveBeenCalledTimes(2);
  });

  it('should keep at most a thousand tags, however many a client makes up', () => {
    const offered = ['en', 'de'];
    for (let index = 0; index < 1001; index++) preferredLanguage(`de-x-${index}`, offered, 'en');
    matcher.mockClear();

    expect(preferredLanguage('de-x-1', offered, 'en')).toBe('de');
    expect(matcher).toHaveBeenCalledTimes(1);
  });
});
