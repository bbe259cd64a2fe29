import { BehaviorSubject, Subject } from 'rxjs';
import type { QueueStatus } from '@waiting-room/streams';
import type { LanguageJson } from '@waiting-room/streams/contract';
import { CATALOGUES, clientMessages, type Locale } from '../../locales';
import type { Progress } from '../../elements/progress';
import { STATUS_TAG, WaitingRoomStatus } from '../../elements/status-element';

customElements.define(STATUS_TAG, WaitingRoomStatus);

const waiting = (position: number): QueueStatus => ({
  kind: 'waiting',
  position,
  estimated: 2,
  updatedAt: Date.UTC(2030, 0, 2, 10, 42, 5),
  connection: 'connected',
  failedPolls: 0,
});

/** A new element in the document, following `progress$`. */
function mount(progress$: Subject<Progress>, lang?: string): WaitingRoomStatus {
  const element = document.createElement(STATUS_TAG) as WaitingRoomStatus;
  if (lang) element.setAttribute('lang', lang);
  element.progress$ = progress$;
  document.body.append(element);
  return element;
}

const shadow = (element: WaitingRoomStatus) => element.shadowRoot as ShadowRoot;
const text = (element: WaitingRoomStatus, selector: string) => {
  const part = shadow(element).querySelector(selector) as HTMLElement;
  return part.hidden ? null : part.textContent;
};

const box = (element: WaitingRoomStatus) => shadow(element).querySelector('.box') as HTMLElement;
const live = (element: WaitingRoomStatus) => shadow(element).querySelector('[aria-live]') as HTMLElement;

/** A language as the gateway's held answer carries it. */
const languageOf = (locale: Locale): LanguageJson => ({ locale, dir: CATALOGUES[locale].dir, messages: clientMessages(CATALOGUES[locale].messages) });

afterEach(() => document.body.replaceChildren());

describe('<waiting-room-status>', () => {
  it('should show nothing while no request is held, with its live region already in place', () => {
    const element = mount(new BehaviorSubject<Progress>({ held: 0, status: null }));
    expect(element.getAttribute('state')).toBe('idle');
    const live = shadow(element).querySelector('[aria-live="polite"]') as HTMLElement;
    expect(live.getAttribute('aria-atomic')).toBe('true');
    expect(live.textContent).toBe('');
    expect(text(element, '.message')).toBeNull();
  });

  it('should show the position, the estimate and the time of the last update, and announce them politely', () => {
    const progress$ = new BehaviorSubject<Progress>({ held: 1, status: null });
    const element = mount(progress$);
    expect(element.getAttribute('state')).toBe('loading');
    expect(text(element, '.message')).toBe('Finding your place in line…');

    progress$.next({ held: 1, status: waiting(12) });
    expect(element.getAttribute('state')).toBe('waiting');
    expect(text(element, '.position strong')).toBe('12');
    expect(text(element, '.position span')).toBe('Your position');
    expect(text(element, '.estimated')).toBe('Estimated wait: about 2 minutes');
    expect(text(element, '.updated')).toMatch(/^Last updated at /);
    expect(shadow(element).querySelector('time')?.getAttribute('datetime')).toBe('2030-01-02T10:42:05.000Z');
    expect(text(element, '[aria-live]')).toBe('Your position: 12. Estimated wait: about 2 minutes');
    expect(text(element, '.notice')).toBeNull();
  });

  it('should speak the language the held answer brought, its numbers and plurals, on a box with its lang and dir', () => {
    const progress$ = new BehaviorSubject<Progress>({ held: 1, status: waiting(12345), language: languageOf('de') });
    const element = mount(progress$, 'en');
    expect(text(element, '.message')).toBe('Ihre Anfrage wartet in der Warteschlange');
    expect(text(element, '.position strong')).toBe('12.345');
    expect(text(element, '.position span')).toBe('Ihre Position');
    expect(text(element, '.estimated')).toBe('Geschätzte Wartezeit: etwa 2 Minuten');
    expect(text(element, '[aria-live]')).toBe('Ihre Position: 12.345. Geschätzte Wartezeit: etwa 2 Minuten');
    expect(text(element, '.hint')).toBe(CATALOGUES.de.messages['element.keepOpen']);
    expect(box(element)).toMatchObject({ lang: 'de', dir: 'ltr' });

    progress$.next({ held: 1, status: waiting(12345), language: languageOf('ar') });
    expect(box(element)).toMatchObject({ lang: 'ar', dir: 'rtl' });
    expect(live(element)).toMatchObject({ lang: 'ar', dir: 'rtl' });
    expect(text(element, '.message')).toBe(CATALOGUES.ar.messages['element.heading']);
    expect(text(element, '.position strong')).toBe(new Intl.NumberFormat('ar').format(12345));
    expect(text(element, '.estimated')).toBe(CATALOGUES.ar.messages['page.estimated'].two);
    expect(element.getAttribute('lang')).toBe('en');
  });

  it('should speak English, built in, when no held answer brought a language, whatever its lang', () => {
    const element = mount(new BehaviorSubject<Progress>({ held: 1, status: waiting(12345), language: null }), 'de');
    expect(text(element, '.message')).toBe('Your request is waiting in line');
    expect(text(element, '.position strong')).toBe('12,345');
    expect(box(element)).toMatchObject({ lang: 'en', dir: 'ltr' });
  });

  it('should pick, without a held language, the one of WaitingRoomStatus.languages for the lang of its closest ancestor with one, and follow a change of its own', () => {
    const before = WaitingRoomStatus.languages;
    WaitingRoomStatus.languages = [before[0], languageOf('fr'), languageOf('he')];
    document.documentElement.setAttribute('lang', 'fr-CA');
    try {
      const element = mount(new BehaviorSubject<Progress>({ held: 1, status: waiting(3) }));
      expect(text(element, '.message')).toBe('Votre demande attend dans la file');
      element.setAttribute('lang', 'he');
      expect(text(element, '.message')).toBe(CATALOGUES.he.messages['element.heading']);
      expect(box(element)).toMatchObject({ lang: 'he', dir: 'rtl' });
      element.setAttribute('lang', 'ja');
      expect(text(element, '.message')).toBe('Your request is waiting in line');
    } finally {
      WaitingRoomStatus.languages = before;
      document.documentElement.removeAttribute('lang');
    }
  });

  it('should say when it is the turn, and show nothing once the request is answered', () => {
    const progress$ = new BehaviorSubject<Progress>({ held: 1, status: waiting(1) });
    const element = mount(progress$, 'en');
    progress$.next({ held: 1, status: { kind: 'released', replay: { kind: 'navigate', target: '/' } } });
    expect(element.getAttribute('state')).toBe('turn');
    expect(text(element, '[aria-live]')).toBe('It is your turn! Sending your request…');
    expect(text(element, '.position')).toBeNull();
    progress$.next({ held: 0, status: null });
    expect(element.getAttribute('state')).toBe('idle');
  });

  it('should follow while in the document only, and never keep what it follows going', () => {
    const progress$ = new BehaviorSubject<Progress>({ held: 1, status: waiting(5) });
    const element = mount(progress$);
    expect(progress$.observed).toBe(true);
    element.remove();
    expect(progress$.observed).toBe(false);
    document.body.append(element);
    expect(progress$.observed).toBe(true);
  });

  it('should follow WaitingRoomStatus.progress$ unless given its own', () => {
    const shared$ = new BehaviorSubject<Progress>({ held: 1, status: waiting(7) });
    const before = WaitingRoomStatus.progress$;
    WaitingRoomStatus.progress$ = shared$;
    try {
      const element = document.createElement(STATUS_TAG) as WaitingRoomStatus;
      document.body.append(element);
      expect(text(element, '.position strong')).toBe('7');
      const own$ = new BehaviorSubject<Progress>({ held: 1, status: waiting(2) });
      element.progress$ = own$;
      expect(text(element, '.position strong')).toBe('2');
      expect(shared$.observed).toBe(false);
    } finally {
      WaitingRoomStatus.progress$ = before;
    }
  });

  it('should write what it shows as text, never as HTML', () => {
    const progress$ = new BehaviorSubject<Progress>({ held: 1, status: waiting(1) });
    const element = mount(progress$);
    expect(shadow(element).querySelectorAll('script, img')).toHaveLength(0);
    expect(shadow(element).innerHTML).not.toContain('undefined');
  });
});
