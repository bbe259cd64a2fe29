import { copyFileSync, mkdtempSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CATALOGUES, LOCALES } from '../../locales';
import { createLanguages } from '../../server/http/languages';
import { VERIFY_LANGUAGE_ID, verifyPageWriter } from '../../server/http/verify-page';
import { LANGUAGE_ELEMENT_ID } from '../../src/verify/texts';
import { startServer, type StartedWithOrigin } from './support/server';

const TEMPLATE = readFileSync(path.join(__dirname, '../../public/verify.html'), 'utf8');
const languages = createLanguages({ defaultLocale: 'en', overrides: {} });

/** The JSON the page's script reads its texts from. */
function languageIn(html: string): { locale: string; dir: string; messages: Record<string, unknown> } {
  const found = new RegExp(`<script id="${VERIFY_LANGUAGE_ID}" type="application/json">(.*?)</script>`).exec(html);
  return JSON.parse(found?.[1] ?? 'null') as { locale: string; dir: string; messages: Record<string, unknown> };
}

describe("the verify page in the visitor's language", () => {
  it("should name its texts' element as the page's script reads it", () => {
    expect(VERIFY_LANGUAGE_ID).toBe(LANGUAGE_ELEMENT_ID);
  });

  it.each(LOCALES)('should write %s: <html lang dir>, the title and the first lines, and the verify.* messages for its script', (locale) => {
    const language = languages.get(locale);
    const html = verifyPageWriter()(TEMPLATE, language);
    const { messages } = CATALOGUES[locale];
    expect(html).toContain(`<html lang="${locale}" dir="${CATALOGUES[locale].dir}">`);
    expect(html).toContain(`<title>${messages['verify.title']}</title>`);
    if (locale != 'en') {
      expect(html).not.toContain(CATALOGUES.en.messages['verify.reading']);
      expect(html).not.toContain(CATALOGUES.en.messages['verify.noscript']);
    }
    const written = languageIn(html);
    expect(written).toMatchObject({ locale, dir: CATALOGUES[locale].dir });
    expect(Object.keys(written.messages).sort()).toEqual(
      Object.keys(messages)
        .filter((key) => key.startsWith('verify.'))
        .sort(),
    );
    expect(written.messages['verify.ok']).toBe(messages['verify.ok']);
  });

  it('should keep the texts out of what ends the script element early', () => {
    const hostile = createLanguages({ defaultLocale: 'en', overrides: { en: { 'verify.ok': '</script><script>alert(1)</script>' } } });
    const html = verifyPageWriter()(TEMPLATE, hostile.get('en'));
    expect(html).not.toContain('<script>alert(1)');
    expect(languageIn(html).messages['verify.ok']).toBe('</script><script>alert(1)</script>');
  });

  describe('GET /events/{id}/verify', () => {
    let server: StartedWithOrigin | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it('should answer in the language the browser asks for, or the one the visitor picked', async () => {
      const assets = mkdtempSync(path.join(tmpdir(), 'waiting-room-assets-'));
      copyFileSync(path.join(__dirname, '../../public/verify.html'), path.join(assets, 'verify.html'));
      server = await startServer({}, {}, { assetsDir: assets });
      const hebrew = await fetch(`${server.url}/events/drop-1/verify`, { headers: { 'accept-language': 'he-IL,he;q=0.9' } });
      expect(hebrew.status).toBe(200);
      expect(hebrew.headers.get('vary')).toMatch(/accept-language/i);
      const html = await hebrew.text();
      expect(html).toContain('<html lang="he" dir="rtl">');
      expect(languageIn(html).messages['verify.title']).toBe(CATALOGUES.he.messages['verify.title']);
      const picked = await fetch(`${server.url}/events/drop-1/verify`, { headers: { 'accept-language': 'he', cookie: 'wr_locale=ja' } });
      expect(await picked.text()).toContain('<html lang="ja" dir="ltr">');
    });
  });
});
