import { parseWeighted, preferredLanguage, prefersHtml } from '../../server/http/negotiate';

describe('parseWeighted', () => {
  it('should read each element with its q, in the order sent, lower-cased', () => {
    expect(parseWeighted('text/HTML;level=1, application/json;q=0.5 , */*; Q=0')).toEqual([
      { value: 'text/html', q: 1 },
      { value: 'application/json', q: 0.5 },
      { value: '*/*', q: 0 },
    ]);
  });

  it('should drop elements with a malformed q, and empty ones', () => {
    expect(parseWeighted('a;q=2, b;q=0.1234, c;q=x, , d;q=1.000, e;q=0.')).toEqual([
      { value: 'd', q: 1 },
      { value: 'e', q: 0 },
    ]);
    expect(parseWeighted(undefined)).toEqual([]);
    expect(parseWeighted('')).toEqual([]);
  });
});

describe('prefersHtml', () => {
  it.each([
    ['text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8', true],
    ['text/html', true],
    ['application/json;q=0.5, text/html', true],
    ['text/html;q=0.9, application/json;q=0.8', true],
    ['*/*', false],
    ['application/json', false],
    ['application/json, text/html', false],
    ['text/html;q=0.8, application/json', false],
    ['text/html;q=0, */*', false],
    ['text/*', false],
    ['', false],
    [undefined, false],
  ])('should read %j as %s', (accept, html) => {
    expect(prefersHtml(accept)).toBe(html);
  });
});

describe('preferredLanguage', () => {
  const pick = (header: string | undefined) => preferredLanguage(header, ['en', 'fr'] as const, 'en');

  it.each([
    ['fr', 'fr'],
    ['fr-CA', 'fr'],
    ['FR-fr,en;q=0.5', 'fr'],
    ['en-GB,fr;q=0.9', 'en'],
    ['de, fr;q=0.5', 'fr'],
    ['en;q=0.4, fr;q=0.6', 'fr'],
    ['fr;q=0, en;q=0.1', 'en'],
    ['de, it', 'en'],
    ['*', 'en'],
    ['x-not-a-tag!, fr;q=0.2', 'fr'],
    ['', 'en'],
    [undefined, 'en'],
  ])('should pick from %j: %s', (header, language) => {
    expect(pick(header)).toBe(language);
  });
});
