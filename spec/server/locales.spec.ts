import { readdirSync } from 'node:fs';
import path from 'node:path';
import { translator } from '@waiting-room/streams/contract';
import { CATALOGUES, ENGLISH, LOCALES, clientMessages } from '../../locales';
import { catalogueProblems, untranslated } from '../../locales/check';

/** The 38 languages of Cloudflare's waiting room, by the tag each has here (`tl-PH` is `fil`, `sr-BA` is `sr-Latn`). */
const CLOUDFLARE_LOCALES = [
  ...['en', 'es', 'de', 'fr', 'it', 'ja', 'ko', 'pt-BR', 'zh-Hans', 'zh-Hant', 'nl', 'pl', 'id', 'tr', 'ar', 'ru', 'fa', 'bg', 'hr', 'cs'],
  ...['da', 'fi', 'lt', 'ms', 'nb', 'ro', 'el', 'he', 'hi', 'hu', 'sr-Latn', 'sk', 'sl', 'sv', 'fil', 'th', 'uk', 'vi'],
];
/** And these besides: European Portuguese, Catalan, Estonian, Latvian, Bengali, Urdu, Swahili, Tamil. */
const BESIDES = ['pt-PT', 'ca', 'et', 'lv', 'bn', 'ur', 'sw', 'ta'];

describe('the catalogue', () => {
  it('should speak the 38 languages of a well-known waiting room, and eight more, 46 in all', () => {
    expect(CLOUDFLARE_LOCALES).toHaveLength(38);
    expect(LOCALES).toEqual(expect.arrayContaining([...CLOUDFLARE_LOCALES, ...BESIDES]));
    expect(LOCALES.length).toBeGreaterThanOrEqual(46);
  });

  it('should list every JSON file of locales/ and no other', () => {
    const files = readdirSync(path.join(__dirname, '../../locales')).filter((file) => file.endsWith('.json'));
    expect(files.map((file) => file.replace(/\.json$/, '')).sort()).toEqual([...LOCALES].sort());
  });

  it('should write Arabic, Persian, Hebrew and Urdu right to left, every other language left to right', () => {
    const rtl = LOCALES.filter((locale) => CATALOGUES[locale].dir === 'rtl');
    expect(rtl.sort()).toEqual(['ar', 'fa', 'he', 'ur']);
    // The direction CLDR gives each language's script (Intl.Locale's text info where Node has it) agrees.
    for (const locale of LOCALES) {
      const script = new Intl.Locale(locale).maximize().script;
      expect([locale, ['Arab', 'Hebr'].includes(script ?? '') ? 'rtl' : 'ltr']).toEqual([locale, CATALOGUES[locale].dir]);
    }
  });

  it.each(LOCALES)('should give %s every message of English, no other, with the same placeholders and its own plural forms', (locale) => {
    expect(catalogueProblems(locale, CATALOGUES[locale].messages, ENGLISH)).toEqual([]);
  });

  it.each(LOCALES)('should leave no English in %s: no text the same as English, no Latin word in another script but names', (locale) => {
    expect(untranslated(locale, CATALOGUES[locale].messages, ENGLISH)).toEqual([]);
  });

  it.each(LOCALES)('should name %s in its own language, distinctly', (locale) => {
    const names = LOCALES.map((other) => CATALOGUES[other].messages['language.name']);
    expect(new Set(names).size).toBe(LOCALES.length);
    if (locale !== 'en') expect(CATALOGUES[locale].messages['page.title']).not.toBe(ENGLISH['page.title']);
  });

  it.each(LOCALES)('should keep the place in the tab title of %s, written as its readers write numbers', (locale) => {
    const t = translator(locale, CATALOGUES[locale].messages);
    const title = t('page.tabTitle', { position: 12345 });
    expect(title).toContain(new Intl.NumberFormat(locale).format(12345));
    expect(title).toContain(CATALOGUES[locale].messages['page.title']);
  });

  it('should leave the server-only namespaces out of what a page gets', () => {
    const sent = Object.keys(clientMessages(ENGLISH));
    expect(sent).toContain('page.heading');
    expect(sent).toContain('lost.goBack');
    expect(sent.filter((key) => key.startsWith('error.') || key.startsWith('html.'))).toEqual([]);
  });
});

describe('the catalogue check', () => {
  const reference = { 'a.text': 'Hello {name}', 'a.count': { one: '{count} minute', other: '{count} minutes' } };

  it('should pass a sound catalogue', () => {
    expect(catalogueProblems('en', { 'a.text': 'Hi {name}!', 'a.count': { one: 'a minute', other: '{count} minutes' } }, reference)).toEqual([]);
  });

  it('should name a missing message and one too many', () => {
    expect(catalogueProblems('en', { 'a.count': reference['a.count'], 'a.extra': 'x' }, reference)).toEqual([
      'en: "a.text" is missing',
      'en: "a.extra" is not a message (English has no such key)',
    ]);
  });

  it('should let a site override some messages only, never add one', () => {
    expect(catalogueProblems('fr', { 'a.text': 'Bonjour {name}' }, reference, true)).toEqual([]);
    expect(catalogueProblems('fr', { 'a.other': 'x' }, reference, true)).toEqual(['fr: "a.other" is not a message (English has no such key)']);
  });

  it('should name placeholders that differ from English', () => {
    expect(catalogueProblems('de', { ...reference, 'a.text': 'Hallo {nom}' }, reference)).toEqual([
      'de: "a.text" has the placeholders {nom}; English has {name}',
    ]);
    expect(catalogueProblems('de', { ...reference, 'a.count': { one: '{count} Minute', other: 'Minuten' } }, reference)).toHaveLength(1);
  });

  it('should ask for exactly the plural forms of the language', () => {
    expect(catalogueProblems('ja', { ...reference, 'a.count': { other: '{count}分' } }, reference)).toEqual([]);
    expect(catalogueProblems('ja', reference, reference)).toEqual(['ja: "a.count" has the plural forms {one, other}; ja has {other}']);
    expect(catalogueProblems('ru', reference, reference)).toEqual(['ru: "a.count" has the plural forms {one, other}; ru has {few, many, one, other}']);
    expect(catalogueProblems('en', { ...reference, 'a.count': 'minutes' }, reference)).toEqual(['en: "a.count" must be plural forms: {one, other}']);
  });

  it('should name markup that differs from English', () => {
    const marked = { 'a.text': 'Read <a href="/faq">the FAQ</a> &amp; wait' };
    expect(catalogueProblems('fr', { 'a.text': 'Lisez <a href="/faq">la FAQ</a> &amp; patientez' }, marked)).toEqual([]);
    expect(catalogueProblems('fr', { 'a.text': 'Lisez la FAQ & patientez' }, marked)).toEqual([
      'fr: "a.text" has the markup []; English has ["<a href=\\"/faq\\">","</a>","&amp;"]',
    ]);
  });

  it('should flag a text left in English, and a Latin word in a catalogue of another script', () => {
    const english = { 'a.title': 'Waiting room', 'a.hash': 'SHA-256 of the seed', 'a.status': 'Error {status}' };
    expect(untranslated('de', { 'a.title': 'Warteraum', 'a.hash': 'SHA-256 des Seeds', 'a.status': 'Fehler {status}' }, english)).toEqual([]);
    expect(untranslated('de', { 'a.title': 'Waiting room', 'a.hash': 'SHA-256 des Seeds', 'a.status': 'Fehler {status}' }, english)).toEqual([
      'de: "a.title" is the same as English: "Waiting room"',
    ]);
    // The same word in the language itself, allowed for that language only.
    expect(untranslated('es', { 'a.status': 'Error {status}' }, english)).toEqual([]);
    expect(untranslated('th', { 'a.title': 'ห้องรอ', 'a.hash': 'SHA-256 ของ seed', 'a.status': 'ข้อผิดพลาด {status}' }, english)).toEqual([
      'th: "a.hash" has Latin words left: seed',
    ]);
  });

  it('should refuse empty texts and what is not a catalogue', () => {
    expect(catalogueProblems('en', { ...reference, 'a.text': ' ' }, reference)).toEqual(['en: "a.text" must be a non-empty text']);
    expect(catalogueProblems('en', [], reference)).toEqual(['en: must be a JSON object of messages']);
  });
});

describe('translator', () => {
  it('should choose the plural form by Intl.PluralRules, and write numbers by Intl.NumberFormat', () => {
    const ar = translator('ar', CATALOGUES.ar.messages);
    expect(ar('page.estimated', { count: 1 })).toBe('وقت الانتظار المتوقع: حوالي دقيقة واحدة');
    expect(ar('page.estimated', { count: 2 })).toBe('وقت الانتظار المتوقع: حوالي دقيقتين');
    expect(ar('page.estimated', { count: 5 })).toContain('دقائق');
    const ru = translator('ru', CATALOGUES.ru.messages);
    expect(ru('page.estimated', { count: 21 })).toBe('Примерное время ожидания: около 21 минуты');
    expect(ru('page.estimated', { count: 5 })).toBe('Примерное время ожидания: около 5 минут');
    expect(translator('de', CATALOGUES.de.messages)('page.announce', { position: 12345 })).toBe('Ihre Position in der Warteschlange: 12.345.');
    expect(translator('fr', CATALOGUES.fr.messages)('page.announce', { position: 12345 })).toBe('Votre position dans la file : 12\u202f345.');
  });

  it.each([
    ['sl', 2, 'Predvideno čakanje: približno 2 minuti'],
    ['sl', 3, 'Predvideno čakanje: približno 3 minute'],
    ['sl', 5, 'Predvideno čakanje: približno 5 minut'],
    ['cs', 3, 'Odhadovaná doba čekání: asi 3 minuty'],
    ['cs', 12, 'Odhadovaná doba čekání: asi 12 minut'],
    ['uk', 21, 'Орієнтовний час очікування: приблизно 21 хвилина'],
    ['uk', 11, 'Орієнтовний час очікування: приблизно 11 хвилин'],
    ['lt', 21, 'Numatomas laukimas: apie 21 minutę'],
    ['lt', 12, 'Numatomas laukimas: apie 12 minučių'],
    ['lv', 21, 'Paredzamais gaidīšanas laiks: aptuveni 21 minūte'],
    ['ro', 19, 'Timp de așteptare estimat: aproximativ 19 minute'],
    ['ro', 20, 'Timp de așteptare estimat: aproximativ 20 de minute'],
    ['hr', 3, 'Procijenjeno čekanje: otprilike 3 minute'],
    ['sr-Latn', 1, 'Procenjeno čekanje: otprilike 1 minut'],
    ['pt-PT', 1, 'Espera prevista: cerca de 1 minuto'],
    ['bn', 12, 'আনুমানিক অপেক্ষা: প্রায় ১২ মিনিট'],
    ['ta', 1, 'மதிப்பிடப்பட்ட காத்திருப்பு: சுமார் 1 நிமிடம்'],
  ] as const)('should write %s for %d minutes as its readers say it', (locale, count, text) => {
    expect(translator(locale, CATALOGUES[locale].messages)('page.estimated', { count })).toBe(text);
  });

  it("should isolate Urdu's times, whose Latin AM and PM would otherwise change places with the digits", () => {
    const ur = translator('ur', CATALOGUES.ur.messages);
    const time = new Intl.DateTimeFormat('ur', { hour: '2-digit', minute: '2-digit' }).format(new Date(2026, 0, 15, 10, 30));
    expect(time).toMatch(/AM/);
    expect(ur('page.updated', { time })).toBe(`آخری بار \u2068${time}\u2069 پر اپ ڈیٹ ہوا`);
    expect(CATALOGUES.ur.messages['event.opensAt']).toContain('\u2068{time}\u2069');
  });

  it('should write a missing key as itself, and leave an unknown placeholder as it is', () => {
    const t = translator('en', { hello: 'Hello {name}', forms: { one: 'one', other: 'many' } });
    expect(t('nothing')).toBe('nothing');
    expect(t('hello')).toBe('Hello {name}');
    expect(t('hello', { name: 'Ada' })).toBe('Hello Ada');
    expect(t('forms', { count: 1 })).toBe('one');
    expect(t('forms', { count: 3 })).toBe('many');
  });
});
