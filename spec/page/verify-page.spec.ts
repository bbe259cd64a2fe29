import type { DrawRecord } from '@waiting-room/streams/contract';
import { CATALOGUES, type Locale } from '../../locales';
import { LANGUAGE_ELEMENT_ID, readVerifyTexts, verifyTextsOf } from '../../src/verify/texts';
import { checkDraw, renderOutcome, verifyRequestOf, type VerifyOutcome } from '../../src/verify/verify-page';

const RECORD: DrawRecord = {
  event: 'drop-1',
  name: 'Spring drop',
  commitment: 'cd'.repeat(32),
  entrants: 3,
  seed: 'ef'.repeat(32),
  order: ['01'.repeat(32), '02'.repeat(32), '03'.repeat(32)],
};
/** The verify page's texts as the server writes them in the page (server/verify-page.ts). */
const textsIn = (locale: Locale) => verifyTextsOf({ locale, dir: CATALOGUES[locale].dir, messages: CATALOGUES[locale].messages });
const ENGLISH = textsIn('en');
const FRENCH = textsIn('fr');
const answer = (status: number, body: unknown) => async () => ({ ok: status == 200, status, json: async () => body }) as Response;

describe('verify page', () => {
  it('should read the event from the path, and the uuid and commitment from the fragment', () => {
    expect(verifyRequestOf({ pathname: '/events/drop-1/verify', hash: '#uuid=u-1&commitment=abc' })).toEqual({
      event: 'drop-1',
      uuid: 'u-1',
      commitment: 'abc',
    });
    expect(verifyRequestOf({ pathname: '/events/drop-1/verify', hash: '' })).toEqual({ event: 'drop-1' });
  });

  it('should say when the draw cannot be read, and when it is not done yet, without checking anything', async () => {
    const shown: VerifyOutcome[] = [];
    await checkDraw({ event: 'x' }, answer(404, { error: { code: 'unknown_event' } }), (outcome) => shown.push(outcome));
    const pending = { event: 'drop-1', commitment: RECORD.commitment, entrants: 7 };
    await checkDraw({ event: 'drop-1' }, answer(200, pending), (outcome) => shown.push(outcome));
    await checkDraw(
      { event: 'drop-1' },
      async () => Promise.reject(new TypeError('offline')),
      (outcome) => shown.push(outcome),
    );
    expect(shown).toEqual([
      { kind: 'unavailable', status: 404 },
      { kind: 'pending', record: pending },
      { kind: 'unavailable', status: 0 },
    ]);
  });

  it("should show the verdict, the visitor's rank and every fact checked, with what it proves and what it cannot", () => {
    const root = document.createElement('main');
    renderOutcome(
      root,
      { kind: 'checked', record: RECORD, verdict: { ok: true, problems: [], entrants: 3, ticket: '02'.repeat(32), rank: 2 } },
      { event: 'drop-1', uuid: 'u-1' },
      ENGLISH,
      'https://shop.example',
    );
    expect(root.querySelector('.wr-verified')?.textContent).toBe('The draw checks out.');
    expect(root.querySelector('.wr-rank')?.textContent).toBe('Your ticket was drawn 2 of 3.');
    expect([...root.querySelectorAll('dd')].map((dd) => dd.textContent)).toEqual(['3', RECORD.commitment, RECORD.seed, '02'.repeat(32)]);
    expect(root.textContent).toContain('arriving at any particular moment gave nobody an advantage');
    expect(root.textContent).toContain('that the operator added no entrants of their own');
    expect(root.querySelector('.wr-command')?.textContent).toBe("npx waiting-room verify-draw 'https://shop.example/events/drop-1/verify#uuid=u-1'");
  });

  it("should list the problems of a draw that does not check out, each in the visitor's language", () => {
    const root = document.createElement('main');
    const verdict = {
      ok: false,
      problems: [
        { code: 'seed_not_committed', message: 'SHA-256 of the seed is not the commitment', values: {} },
        { code: 'entrants_mismatch', message: '4 entrants are announced, the order has 3', values: { entrants: 1234, order: 3 } },
      ] as const,
      entrants: 3,
      ticket: null,
      rank: null,
    };
    renderOutcome(root, { kind: 'checked', record: RECORD, verdict }, { event: 'drop-1' }, FRENCH, 'https://shop.example');
    expect(root.querySelector('.wr-refuted')?.textContent).toBe('Le tirage ne se vérifie pas :');
    expect([...root.querySelectorAll('.wr-problems li')].map((li) => li.textContent)).toEqual([
      'Le SHA-256 de la graine n’est pas l’engagement.',
      'Participants annoncés : 1\u202f234 ; tickets dans l’ordre : 3.',
    ]);
    expect(root.textContent).toContain('Ouvrez cette page depuis votre page d’attente');
    const arabic = document.createElement('main');
    renderOutcome(arabic, { kind: 'checked', record: RECORD, verdict }, { event: 'drop-1' }, textsIn('ar'), 'https://shop.example');
    expect(arabic.querySelector('h1')?.textContent).toBe(CATALOGUES.ar.messages['verify.title']);
  });

  it('should read the language the server wrote in the page, and show keys rather than break without one', () => {
    document.body.innerHTML = `<script id="${LANGUAGE_ELEMENT_ID}" type="application/json">${JSON.stringify({ locale: 'de', dir: 'ltr', messages: { 'verify.title': 'Auslosung prüfen' } })}</script>`;
    const texts = readVerifyTexts(document);
    expect(texts.lang).toBe('de');
    expect(texts.t('verify.title')).toBe('Auslosung prüfen');
    document.body.innerHTML = `<script id="${LANGUAGE_ELEMENT_ID}" type="application/json">{not json</script>`;
    expect(readVerifyTexts(document).t('verify.title')).toBe('verify.title');
    document.body.innerHTML = '';
  });
});
