import { execFileSync } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
/** The verify page's texts as the server writes them in the page (server/http/verify-page.ts). */
const textsIn = (locale: Locale) => verifyTextsOf({ locale, dir: CATALOGUES[locale].dir, messages: CATALOGUES[locale].messages });
const ENGLISH = textsIn('en');
const FRENCH = textsIn('fr');
const answer = (status: number, body: unknown) => async () => ({ ok: status == 200, status, json: async () => body }) as Response;

describe('verify page', () => {
  // jsdom has no Web Crypto; Node's is the one the browser's stands for.
  beforeAll(() => {
    if (globalThis.crypto?.subtle === undefined) Object.defineProperty(globalThis, 'crypto', { value: webcrypto, configurable: true });
  });
  it('should read the event from the path, and the uuid and commitment from the fragment', () => {
    expect(verifyRequestOf({ pathname: '/events/drop-1/verify', hash: `#uuid=u-1&commitment=${RECORD.commitment}` })).toEqual({
      event: 'drop-1',
      uuid: 'u-1',
      commitment: RECORD.commitment,
    });
    expect(verifyRequestOf({ pathname: '/events/drop-1/verify', hash: '' })).toEqual({ event: 'drop-1' });
  });

  it('should take from the fragment only a uuid and a commitment that are one, leaving out anything else a link carries', () => {
    const hash = `#uuid=${encodeURIComponent("x';touch pwned;echo '")}&commitment=${encodeURIComponent('Your draw was rigged: call +1 555 0100')}`;
    expect(verifyRequestOf({ pathname: '/events/drop-1/verify', hash })).toEqual({ event: 'drop-1' });
    expect(verifyRequestOf({ pathname: '/events/drop-1/verify', hash: `#commitment=${'AB'.repeat(32)}` })).toEqual({ event: 'drop-1' });
  });

  it("should not write a link's own words in its failure message", async () => {
    const request = verifyRequestOf({ pathname: '/events/drop-1/verify', hash: `#commitment=${encodeURIComponent('Your draw was rigged: call +1 555 0100')}` });
    const root = document.createElement('main');
    await checkDraw(request, answer(200, RECORD), (outcome) => renderOutcome(root, outcome, request, ENGLISH, 'https://shop.example'));
    expect(root.querySelector('.wr-refuted')).not.toBeNull();
    expect(root.textContent).not.toContain('rigged');
  });

  describe('the command it shows', () => {
    /** What a shell makes of the command: its words after `verify-draw`, one a line, run with printf in a folder of its own. */
    const wordsOf = (command: string): { words: string[]; files: string[] } => {
      const dir = mkdtempSync(path.join(tmpdir(), 'verify-command-'));
      expect(command.startsWith('npx waiting-room verify-draw ')).toBe(true);
      const printed = execFileSync('/bin/sh', ['-c', `printf '%s\\n' ${command.slice('npx waiting-room verify-draw '.length)}`], {
        cwd: dir,
        encoding: 'utf8',
      });
      return { words: printed.split('\n').slice(0, -1), files: readdirSync(dir) };
    };

    it("should be the page's own address, uuid and commitment included, as one word whatever the link held", async () => {
      const uuid = '00000000-0000-4000-8000-000000000004';
      const hash = `#uuid=${uuid}&commitment=${RECORD.commitment}`;
      const root = document.createElement('main');
      const request = verifyRequestOf({ pathname: '/events/drop-1/verify', hash });
      await checkDraw(request, answer(200, RECORD), (outcome) => renderOutcome(root, outcome, request, ENGLISH, 'https://shop.example'));
      expect(wordsOf(root.querySelector('.wr-command')?.textContent ?? '')).toEqual({
        words: [`https://shop.example/events/drop-1/verify${hash}`],
        files: [],
      });
    });

    it.each([
      [
        'a uuid that breaks out of the quotes',
        '/events/drop-1/verify',
        `#uuid=${encodeURIComponent("x';touch pwned;echo '")}`,
        'https://shop.example/events/drop-1/verify',
      ],
      [
        'an event id with quotes and brackets',
        `/events/${encodeURIComponent("x' (touch pwned) '")}/verify`,
        '',
        "https://shop.example/events/x'%20(touch%20pwned)%20'/verify",
      ],
    ])('should run nothing of %s', async (_what, pathname, hash, address) => {
      const root = document.createElement('main');
      const request = verifyRequestOf({ pathname, hash });
      renderOutcome(root, { kind: 'pending', record: { ...RECORD, seed: undefined, order: undefined } }, request, ENGLISH, 'https://shop.example');
      expect(wordsOf(root.querySelector('.wr-command')?.textContent ?? '')).toEqual({ words: [address], files: [] });
    });
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
