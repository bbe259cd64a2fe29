import type { QueueStatus } from '@waiting-room/streams';
import type { LanguageJson } from '@waiting-room/streams/contract';
import { CATALOGUES, clientMessages, type Locale } from '../../locales';
import { statusView } from '../../elements/status-view';
import { ENGLISH, textsOf } from '../../elements/texts';

const AT = Date.UTC(2030, 0, 2, 10, 42, 5);
const waiting = (extra: Partial<Extract<QueueStatus, { kind: 'waiting' }>> = {}): QueueStatus => ({
  kind: 'waiting',
  position: 1234,
  estimated: 3.4,
  updatedAt: AT,
  connection: 'connected',
  failedPolls: 0,
  ...extra,
});

/** A language as the gateway's held answer carries it. */
const languageOf = (locale: Locale): LanguageJson => ({ locale, dir: CATALOGUES[locale].dir, messages: clientMessages(CATALOGUES[locale].messages) });
const english = textsOf(ENGLISH);

describe('<waiting-room-status>: what it shows', () => {
  it('should show nothing, and say nothing, while no request is held', () => {
    expect(statusView({ held: 0, status: null }, english)).toMatchObject({ state: 'idle', announcement: '', message: '', position: null });
  });

  it('should say it is finding the place until the first position', () => {
    expect(statusView({ held: 1, status: null }, english)).toMatchObject({
      state: 'loading',
      message: 'Finding your place in line…',
      announcement: 'Finding your place in line…',
    });
    expect(statusView({ held: 1, status: { kind: 'loading', connection: 'connecting', failedPolls: 0 } }, textsOf(languageOf('fr')))).toMatchObject({
      state: 'loading',
      message: 'Recherche de votre place dans la file…',
      notice: null,
    });
  });

  it('should show the position, the estimate in whole minutes and when it was updated, and announce position and estimate', () => {
    const view = statusView({ held: 1, status: waiting() }, english);
    expect(view).toMatchObject({
      state: 'waiting',
      message: 'Your request is waiting in line',
      position: '1,234',
      estimated: 'Estimated wait: about 3 minutes',
      updatedAt: AT,
      announcement: 'Your position: 1,234. Estimated wait: about 3 minutes',
      notice: null,
    });
    expect(view.updated).toBe(`Last updated at ${new Date(AT).toLocaleTimeString('en', { hour: '2-digit', minute: '2-digit', second: '2-digit' })}`);
    expect(statusView({ held: 1, status: waiting({ estimated: 1.2 }) }, english).estimated).toBe('Estimated wait: about 1 minute');
    expect(statusView({ held: 1, status: waiting({ estimated: 0.4 }) }, english).estimated).toBe('Estimated wait: less than a minute');
  });

  it('should write numbers, plurals and times as a German reader does', () => {
    const view = statusView({ held: 1, status: waiting({ position: 12345, estimated: 1 }) }, textsOf(languageOf('de')));
    expect(view).toMatchObject({
      message: 'Ihre Anfrage wartet in der Warteschlange',
      position: '12.345',
      estimated: 'Geschätzte Wartezeit: etwa 1 Minute',
      announcement: 'Ihre Position: 12.345. Geschätzte Wartezeit: etwa 1 Minute',
    });
    expect(view.updated).toContain(new Intl.DateTimeFormat('de', { hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(AT));
    expect(statusView({ held: 1, status: waiting({ estimated: 5 }) }, textsOf(languageOf('de'))).estimated).toBe('Geschätzte Wartezeit: etwa 5 Minuten');
  });

  it("should speak French, with French numbers and the catalogue's French", () => {
    const view = statusView({ held: 1, status: waiting({ estimated: 0.4 }) }, textsOf(languageOf('fr')));
    expect(view).toMatchObject({ message: 'Votre demande attend dans la file', estimated: "Attente estimée : moins d'une minute" });
    expect(view.position).toBe(new Intl.NumberFormat('fr').format(1234));
    expect(view.announcement).toBe(`Votre position : ${new Intl.NumberFormat('fr').format(1234)}. Attente estimée : moins d'une minute`);
  });

  it("should choose among Arabic's six plural forms, and write Arabic's digits", () => {
    const arabic = textsOf(languageOf('ar'));
    expect(arabic.dir).toBe('rtl');
    const estimated = (minutes: number) => statusView({ held: 1, status: waiting({ estimated: minutes }) }, arabic).estimated;
    const forms = CATALOGUES.ar.messages['page.estimated'];
    const number = new Intl.NumberFormat('ar');
    expect(estimated(2)).toBe(forms.two.replace('{count}', number.format(2)));
    expect(estimated(3)).toBe(forms.few.replace('{count}', number.format(3)));
    expect(estimated(11)).toBe(forms.many.replace('{count}', number.format(11)));
    expect(new Set([2, 3, 11, 100].map(estimated)).size).toBe(4);
    expect(statusView({ held: 1, status: waiting() }, arabic).position).toBe(number.format(1234));
  });

  it.each([
    ['the connection is lost', { connection: 'unavailable' as const }, 'Connection lost. Reconnecting… You keep your place in line.'],
    ['queue_info failed', { failedPolls: 2 }, 'Your position could not be refreshed. Retrying…'],
  ])('should keep the position and add a notice when %s', (_, extra, notice) => {
    expect(statusView({ held: 1, status: waiting(extra) }, english)).toMatchObject({ state: 'waiting', position: '1,234', notice });
  });

  it.each<[QueueStatus, string, string]>([
    [{ kind: 'released', replay: { kind: 'navigate', target: '/x' } }, 'turn', 'It is your turn! Sending your request…'],
    [{ kind: 'lost', rejoin: '/x' }, 'lost', 'Your place in line was lost. Joining the line again…'],
    [{ kind: 'rejoining', target: '/x' }, 'lost', 'Your place in line was lost. Joining the line again…'],
    [{ kind: 'failed', message: 'Websoket KO - unavailable' }, 'failed', 'The waiting room could not keep your place: your request was not sent.'],
  ])('should say what happens at %j', (status, state, message) => {
    expect(statusView({ held: 1, status }, english)).toEqual({
      state,
      message,
      announcement: message,
      position: null,
      estimated: null,
      updatedAt: null,
      updated: null,
      notice: null,
    });
  });

  it.each(Object.keys(CATALOGUES) as Locale[])('should say every state in %s with no message missing', (locale) => {
    const texts = textsOf(languageOf(locale));
    const statuses: QueueStatus[] = [
      waiting({ connection: 'unavailable' }),
      waiting({ failedPolls: 1, estimated: 0 }),
      { kind: 'released', replay: { kind: 'navigate', target: '/x' } },
      { kind: 'lost', rejoin: '/x' },
      { kind: 'failed', message: 'Websoket KO - unavailable' },
    ];
    const said = [null, ...statuses].flatMap((status) => Object.values(statusView({ held: 1, status }, texts)).filter((value) => typeof value == 'string'));
    expect(said.filter((text) => /\b(element|page)\.\w+|\{\w+\}/.test(text))).toEqual([]);
  });
});

describe('<waiting-room-status>: its built-in English', () => {
  it("should be the catalogue's English for each message the element shows", () => {
    for (const [key, message] of Object.entries(ENGLISH.messages)) expect(message).toEqual(CATALOGUES.en.messages[key as keyof typeof CATALOGUES.en.messages]);
  });

  it('should hold only the messages the element shows, every one of them in what the gateway sends', () => {
    const keys = Object.keys(ENGLISH.messages);
    expect(keys.length).toBeLessThan(Object.keys(CATALOGUES.en.messages).length / 4);
    expect(keys.every((key) => key in clientMessages(CATALOGUES.en.messages))).toBe(true);
  });
});
