import { LOCALES as ALL_LOCALES } from '../../locales';
import { preferredLanguage, prefersHtml, prefersJson } from '../../server/http/negotiate';

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
    // A media range of the type counts as naming it (RFC 9110 §12.5.1).
    ['text/*', true],
    ['text/html, application/json', true],
    ['text/html;q=0.5, application/json;q=0.5', true],
    ['TEXT/HTML, application/json;q=0.5', true],
    ['', false],
    [undefined, false],
  ])('should read %j as %s', (accept, html) => {
    expect(prefersHtml(accept)).toBe(html);
  });
});

describe('prefersJson', () => {
  it.each([
    ['application/json', true],
    ['application/json, text/html;q=0.9', true],
    ['application/*', true],
    ['*/*', false],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['application/json;q=0, */*', false],
    ['', false],
    [undefined, false],
  ])('should read %j as %s', (accept, json) => {
    expect(prefersJson(accept)).toBe(json);
  });
});

describe('preferredLanguage', () => {
  const CATALOGUE = ALL_LOCALES;
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

  const LOCALES = ['en', 'es', 'de', 'fr', 'ja', 'pt-BR', 'zh-Hans', 'zh-Hant', 'ar', 'fa', 'he', 'id'] as const;
  it.each([
    ['de-AT,de;q=0.9,en;q=0.5', 'de'],
    ['zh-TW,zh;q=0.9', 'zh-Hant'],
    ['zh-HK', 'zh-Hant'],
    ['zh-CN', 'zh-Hans'],
    ['zh', 'zh-Hans'],
    ['pt-PT', 'pt-BR'],
    ['pt', 'pt-BR'],
    ['ar-EG,ar;q=0.9,en;q=0.3', 'ar'],
    ['fa-IR', 'fa'],
    ['iw', 'he'],
    ['in', 'id'],
    ['es-419', 'es'],
    ['xx-YY, ja;q=0.2', 'ja'],
    ['sr, nb;q=0.5', 'en'],
    ['uk, en;q=0.5', 'en'],
    ['ku', 'en'],
    ['ca, fr;q=0.5', 'fr'],
    ['sw', 'en'],
    ['en_US, fr;q=0.1', 'fr'],
  ])('should match %j to the locale offered that fits best: %s', (header, locale) => {
    expect(preferredLanguage(header, LOCALES, 'en')).toBe(locale);
  });

  // Every family of tags a browser sends, against the catalogue's own locales.
  it.each([
    ['nb', 'nb'],
    ['nb-NO', 'nb'],
    ['no', 'nb'],
    ['no-NO', 'nb'],
    ['nn', 'nb'],
    ['nn-NO,en;q=0.5', 'nb'],
    ['pt-PT', 'pt-PT'],
    ['pt-AO', 'pt-PT'],
    ['pt-MZ', 'pt-PT'],
    ['pt-CV', 'pt-PT'],
    ['pt', 'pt-BR'],
    ['pt-BR', 'pt-BR'],
    ['sr', 'sr-Latn'],
    ['sr-Latn', 'sr-Latn'],
    ['sr-Cyrl', 'sr-Latn'],
    ['sr-BA', 'sr-Latn'],
    ['sr-Cyrl-BA', 'sr-Latn'],
    ['sr-RS', 'sr-Latn'],
    ['sr-ME', 'sr-Latn'],
    ['zh-SG', 'zh-Hans'],
    ['zh-CN', 'zh-Hans'],
    ['zh-HK', 'zh-Hant'],
    ['zh-MO', 'zh-Hant'],
    ['zh-TW', 'zh-Hant'],
    ['tl', 'fil'],
    ['tl-PH', 'fil'],
    ['fil', 'fil'],
    ['fil-PH', 'fil'],
    ['ms', 'ms'],
    ['ms-MY', 'ms'],
    ['ms-SG', 'ms'],
    ['he', 'he'],
    ['iw', 'he'],
    ['iw-IL', 'he'],
    ['id', 'id'],
    ['in', 'id'],
    ['ur', 'ur'],
    ['ur-PK', 'ur'],
    ['ur-IN', 'ur'],
    ['bn', 'bn'],
    ['bn-IN', 'bn'],
    ['bn-BD', 'bn'],
    ['ca', 'ca'],
    ['ca-ES-valencia', 'ca'],
    ['ca-AD', 'ca'],
    ['es-419', 'es'],
    ['sw-KE', 'sw'],
    ['ta-LK', 'ta'],
    ['uk-UA, ru;q=0.5', 'uk'],
    ['et-EE', 'et'],
    ['lv-LV', 'lv'],
    ['el-GR', 'el'],
    ['fa-AF', 'fa'],
    ['ar-EG', 'ar'],
    ['hi-IN', 'hi'],
    ['th-TH', 'th'],
    ['vi-VN', 'vi'],
    // Not a language the catalogue speaks, nor one whose readers read another of it as their own.
    ['bs', 'en'],
    ['ku', 'en'],
    ['xh, zu;q=0.5', 'en'],
  ])('should match %j to the closest language of the catalogue: %s', (header, locale) => {
    expect(preferredLanguage(header, CATALOGUE, 'en')).toBe(locale);
  });

  it('should answer the fallback for a header of many junk ranges, without trying them all', () => {
    const junk = Array.from({ length: 5000 }, (_, i) => `x${i}-${'a'.repeat(9)};q=0.${i % 9}`).join(',');
    expect(preferredLanguage(junk, LOCALES, 'fr')).toBe('fr');
    expect(preferredLanguage(`${Array.from({ length: 40 }, () => 'sr').join(',')}, de`, LOCALES, 'en')).toBe('en');
  });
});
