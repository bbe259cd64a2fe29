import { readFileSync } from 'node:fs';
import path from 'node:path';
import { StrictMode } from 'react';
import { act, render, screen } from '@testing-library/react';
import { BehaviorSubject, Observable, defer, shareReplay } from 'rxjs';
import type { QueueStatus } from '@waiting-room/streams';
import { WaitingRoom } from '../../src/view/WaitingRoom';
import { ENGLISH, FRENCH, textsFor } from './fakes/texts';
import { lostPlaceView } from '../../src/view/lost-place';
import { settle } from './fakes/fake-fetch';

const HEALTHY = { connection: 'connected', failedPolls: 0 } as const;
const UPDATED_AT = Date.UTC(2025, 0, 1, 12, 34, 56);
const waitingAt = (position: number, extra: Partial<QueueStatus> = {}): QueueStatus =>
  ({ kind: 'waiting', position, estimated: 4, updatedAt: UPDATED_AT, ...HEALTHY, ...extra }) as QueueStatus;

/** A status stream the test drives, counting subscriptions that are still open. */
function controlledQueue(first: QueueStatus = { kind: 'loading', ...HEALTHY }) {
  const status$ = new BehaviorSubject<QueueStatus>(first);
  let open = 0;
  let opened = 0;
  const queue$ = new Observable<QueueStatus>((subscriber) => {
    open += 1;
    opened += 1;
    const subscription = status$.subscribe(subscriber);
    return () => {
      open -= 1;
      subscription.unsubscribe();
    };
  });
  return { status$, queue$, open: () => open, opened: () => opened };
}

const squash = (html: string) => html.replace(/>\s+</g, '><').trim();

/** Loads the lost-place view (a file of its own in the page). */
const loadLostPlace = jest.fn(async () => lostPlaceView);

afterEach(() => {
  document.title = '';
});

describe('view: loading block', () => {
  it('should render the same markup as the static loading block of public/index.html, so the swap does not show', () => {
    const template = readFileSync(path.join(__dirname, '../../public/index.html'), 'utf8');
    const staticRoot = new DOMParser().parseFromString(template, 'text/html').getElementById('waiting-room')!;
    const { container } = render(<WaitingRoom queue$={new Observable<QueueStatus>()} texts={ENGLISH} loadLostPlace={loadLostPlace} />);
    expect(container.innerHTML).toBe(squash(staticRoot.innerHTML));
  });

  it('should stay on the loading block until the first waiting status', () => {
    const { status$, queue$ } = controlledQueue();
    render(<WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={loadLostPlace} />);
    expect(screen.getByRole('status').querySelector('p')!.textContent).toBe('Finding your place in line…');
    act(() => status$.next(waitingAt(12)));
    expect(screen.queryByText('Finding your place in line…')).toBeNull();
  });
});

describe('view: waiting block', () => {
  it('should show the position, the estimated wait in minutes and when they were last updated', () => {
    const { status$, queue$ } = controlledQueue();
    render(<WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={loadLostPlace} />);
    act(() => status$.next(waitingAt(1234, { estimated: 4.4 })));
    expect(screen.getByRole('heading').textContent).toBe('You are in line');
    expect(screen.getByText('1,234')).toBeTruthy();
    expect(screen.getByText('Estimated wait: about 4 minutes')).toBeTruthy();
    const time = document.querySelector('time')!;
    expect(time.dateTime).toBe('2025-01-01T12:34:56.000Z');
    expect(time.textContent).toMatch(/^Last updated at \d\d:\d\d:\d\d/);
  });

  it('should say the visitor may leave, and for how long, in their language and its plural, when the config says it', () => {
    const { queue$ } = controlledQueue(waitingAt(3));
    const { unmount } = render(<WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={loadLostPlace} awayMinutes={30} />);
    expect(document.querySelector('.wr-away')!.textContent).toBe('You may leave this page: your place is kept for 30 minutes while you are away.');
    unmount();
    render(<WaitingRoom queue$={queue$} texts={textsFor('ru')} loadLostPlace={loadLostPlace} awayMinutes={21} />);
    expect(document.querySelector('.wr-away')!.textContent).toBe('Можно уйти с этой страницы: ваше место сохраняется 21 минуту, пока вас нет.');
  });

  it('should say nothing of leaving without the away time', () => {
    const { queue$ } = controlledQueue(waitingAt(3));
    render(<WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={loadLostPlace} />);
    expect(document.querySelector('.wr-away')).toBeNull();
  });

  it.each([
    [0, 'less than a minute'],
    [1, 'about 1 minute'],
    [2, 'about 2 minutes'],
  ])('should word an estimate of %p minutes as "%s"', (estimated, words) => {
    const { queue$ } = controlledQueue(waitingAt(3, { estimated }));
    render(<WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={loadLostPlace} />);
    expect(screen.getByText(`Estimated wait: ${words}`)).toBeTruthy();
  });

  it('should announce the position politely to screen readers, in a live region present from the start', () => {
    const { status$, queue$ } = controlledQueue();
    render(<WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={loadLostPlace} />);
    const live = document.querySelector('[aria-live="polite"]')!;
    expect(live.getAttribute('aria-atomic')).toBe('true');
    expect(live.textContent).toBe('');
    act(() => status$.next(waitingAt(12)));
    expect(document.querySelector('[aria-live="polite"]')).toBe(live);
    expect(live.textContent).toBe('Your position in line: 12. Estimated wait: about 4 minutes');
    act(() => status$.next(waitingAt(11)));
    expect(live.textContent).toBe('Your position in line: 11. Estimated wait: about 4 minutes');
  });

  it('should change the announcement once per change of position, never for a poll that changes nothing or a new estimate alone', () => {
    const { status$, queue$ } = controlledQueue();
    render(<WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={loadLostPlace} />);
    const live = document.querySelector('[aria-live="polite"]')!;
    const observer = new MutationObserver(() => undefined);
    observer.observe(live, { childList: true, subtree: true, characterData: true });
    /** The live region's text after `status`, and whether the DOM of the region changed at all. */
    const after = (status: QueueStatus) => {
      act(() => status$.next(status));
      return { text: live.textContent, changed: observer.takeRecords().length > 0 };
    };
    expect(after(waitingAt(12))).toEqual({ text: 'Your position in line: 12. Estimated wait: about 4 minutes', changed: true });
    expect(after(waitingAt(12, { updatedAt: UPDATED_AT + 5000 })).changed).toBe(false);
    expect(after(waitingAt(12, { estimated: 3 })).changed).toBe(false);
    expect(after(waitingAt(11, { estimated: 3 }))).toEqual({ text: 'Your position in line: 11. Estimated wait: about 3 minutes', changed: true });
    expect(after(waitingAt(11, { estimated: 3, failedPolls: 1 })).changed).toBe(false);
    observer.disconnect();
  });

  it('should show the position in the tab title', () => {
    const { status$, queue$ } = controlledQueue();
    render(<WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={loadLostPlace} />);
    expect(document.title).toBe('Waiting room');
    act(() => status$.next(waitingAt(7)));
    expect(document.title).toBe('#7 · Waiting room');
  });
});

describe('view: notice while the connection is lost or polls fail', () => {
  it.each(['unavailable', 'failed', 'disconnected'])('should show a notice while the connection is %s, keeping the position', (connection) => {
    const { status$, queue$ } = controlledQueue(waitingAt(5));
    render(<WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={loadLostPlace} />);
    expect(screen.queryByRole('alert')).toBeNull();
    act(() => status$.next(waitingAt(5, { connection } as Partial<QueueStatus>)));
    expect(screen.getByRole('alert').textContent).toBe('Connection lost. Reconnecting… You keep your place in line.');
    expect(screen.getByText('5')).toBeTruthy();
    act(() => status$.next(waitingAt(5)));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('should show a notice while polls fail, even before the first position', () => {
    const { status$, queue$ } = controlledQueue();
    render(<WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={loadLostPlace} />);
    act(() => status$.next({ kind: 'loading', connection: 'connected', failedPolls: 2 }));
    expect(screen.getByRole('alert').textContent).toBe('Your position could not be refreshed. Retrying…');
    expect(screen.getByText('Finding your place in line…')).toBeTruthy();
  });

  it('should not show a notice while first connecting', () => {
    const { queue$ } = controlledQueue({ kind: 'loading', connection: 'connecting', failedPolls: 0 });
    render(<WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={loadLostPlace} />);
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('view: released and leaving', () => {
  it.each<[QueueStatus, string]>([
    [{ kind: 'released', replay: { kind: 'navigate', target: '/c' } }, 'It is your turn! Taking you there…'],
    [{ kind: 'failed', message: 'Websoket KO - unavailable' }, 'Taking you back…'],
    [{ kind: 'leaving', step: 'back' }, 'Taking you back…'],
  ])('should say what happens next on %p', (status, text) => {
    const { queue$ } = controlledQueue(status);
    render(<WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={loadLostPlace} />);
    expect(screen.getByRole('status').textContent).toBe(text);
  });
});

describe('view: a lost place (beyond the specification)', () => {
  afterEach(() => jest.restoreAllMocks());

  /** Renders a page waiting at position 3, then loses its place with `rejoin`. */
  async function lose(rejoin: string | null, texts = ENGLISH) {
    const { status$, queue$ } = controlledQueue(waitingAt(3));
    const load = jest.fn(async () => lostPlaceView);
    render(<WaitingRoom queue$={queue$} texts={texts} loadLostPlace={load} />);
    expect(load).not.toHaveBeenCalled();
    await act(async () => {
      status$.next({ kind: 'lost', rejoin });
      await settle();
    });
    return { status$, load };
  }

  it('should say the place was lost and why, then that it takes the visitor back in line, for a held GET', async () => {
    const { status$, load } = await lose('/checkout?item=42#size');
    const alert = screen.getByRole('alert');
    expect(alert.querySelector('h1')!.textContent).toBe('Your place in line was lost');
    expect([...alert.querySelectorAll('p')].map((p) => p.textContent)).toEqual([
      'The waiting room restarted or your place expired.',
      'Taking you back in line…',
    ]);
    expect(screen.queryByRole('button')).toBeNull();
    expect(screen.queryByText('3')).toBeNull();
    expect(document.querySelector('[aria-live="polite"]')!.textContent).toBe('');
    expect(document.title).toBe('Waiting room');
    await act(async () => {
      status$.next({ kind: 'rejoining', target: '/checkout?item=42#size' });
      await settle();
    });
    expect(screen.getByRole('alert').textContent).toContain('Taking you back in line…');
    expect(load).toHaveBeenCalled();
  });

  it('should offer to go back to the form, and a link to the site root, for a held form, going nowhere by itself', async () => {
    const back = jest.spyOn(window.history, 'back').mockImplementation(() => undefined);
    await lose(null);
    const alert = screen.getByRole('alert');
    expect(alert.querySelector('h1')!.textContent).toBe('Your place in line was lost');
    expect(alert.textContent).toContain('The waiting room restarted or your place expired.');
    expect(alert.textContent).toContain('Your form was not sent. Go back to send it again.');
    expect(alert.textContent).not.toContain('Taking you back in line…');
    expect(screen.getByRole('link', { name: 'Go to the home page' }).getAttribute('href')).toBe('/');
    expect(back).not.toHaveBeenCalled();
    act(() => screen.getByRole('button', { name: 'Go back' }).click());
    expect(back).toHaveBeenCalledTimes(1);
  });

  it('should say it all in French', async () => {
    await lose(null, FRENCH);
    const alert = screen.getByRole('alert');
    expect(alert.querySelector('h1')!.textContent).toBe('Votre place dans la file a été perdue');
    expect(alert.textContent).toContain("La salle d'attente a redémarré ou votre place a expiré.");
    expect(alert.textContent).toContain("Votre formulaire n'a pas été envoyé. Revenez en arrière pour l'envoyer à nouveau.");
    expect(screen.getByRole('button').textContent).toBe('Revenir en arrière');
    expect(screen.getByRole('link').textContent).toBe("Aller à la page d'accueil");
  });

  it('should say in French that it takes the visitor back in line', async () => {
    await lose('/checkout', FRENCH);
    expect(screen.getByRole('alert').textContent).toContain('Nous vous remettons dans la file…');
  });

  it('should not load the lost-place view while the visitor is in line, released or leaving', () => {
    const { status$, queue$ } = controlledQueue();
    const load = jest.fn(async () => lostPlaceView);
    render(<WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={load} />);
    act(() => status$.next(waitingAt(3)));
    act(() => status$.next({ kind: 'released', replay: { kind: 'navigate', target: '/c' } }));
    act(() => status$.next({ kind: 'leaving', step: 'back' }));
    expect(load).not.toHaveBeenCalled();
  });
});

describe('view: languages', () => {
  it('should show the waiting page in Arabic, with Arabic plural forms and numbers as the language writes them', () => {
    const arabic = textsFor('ar');
    const { status$, queue$ } = controlledQueue();
    render(<WaitingRoom queue$={queue$} texts={arabic} loadLostPlace={loadLostPlace} />);
    expect(screen.getByRole('status').querySelector('p')!.textContent).toBe('جارٍ البحث عن مكانك في قائمة الانتظار…');
    act(() => status$.next(waitingAt(12345, { estimated: 2 })));
    const number = new Intl.NumberFormat('ar').format(12345);
    expect(screen.getByRole('heading').textContent).toBe('أنت في قائمة الانتظار');
    expect(document.querySelector('.wr-position strong')!.textContent).toBe(number);
    expect(screen.getByText('وقت الانتظار المتوقع: حوالي دقيقتين')).toBeTruthy();
    expect(document.title).toBe(`رقم ${number} · غرفة الانتظار`);
    expect(document.querySelector('[aria-live="polite"]')!.textContent).toBe(`ترتيبك في قائمة الانتظار: ${number}. وقت الانتظار المتوقع: حوالي دقيقتين`);
  });

  it('should show the whole waiting page in French', () => {
    const { status$, queue$ } = controlledQueue();
    render(<WaitingRoom queue$={queue$} texts={FRENCH} loadLostPlace={loadLostPlace} />);
    expect(screen.getByRole('status').querySelector('p')!.textContent).toBe('Recherche de votre place dans la file…');
    act(() => status$.next(waitingAt(12345, { estimated: 1, connection: 'unavailable' })));
    expect(screen.getByRole('heading').textContent).toBe("Vous êtes dans la file d'attente");
    expect(document.querySelector('.wr-position strong')!.textContent).toMatch(/^12\s345$/);
    expect(screen.getByText('Attente estimée : environ 1 minute')).toBeTruthy();
    expect(document.querySelector('time')!.textContent).toMatch(/^Dernière mise à jour à \d\d:\d\d:\d\d/);
    expect(screen.getByRole('alert').textContent).toBe('Connexion perdue. Reconnexion… Vous gardez votre place dans la file.');
    expect(document.title).toMatch(/^n° 12\s345 · Salle d'attente$/);
  });
});

describe('view: StrictMode', () => {
  it('should hold one subscription to the status stream once mounted, and none after unmount', () => {
    const { queue$, open } = controlledQueue(waitingAt(3));
    const { unmount } = render(
      <StrictMode>
        <WaitingRoom queue$={queue$} texts={ENGLISH} loadLostPlace={loadLostPlace} />
      </StrictMode>,
    );
    expect(open()).toBe(1);
    expect(screen.getByText('3')).toBeTruthy();
    unmount();
    expect(open()).toBe(0);
  });

  it('should not start the shared stream twice when mounted while another subscriber holds it', () => {
    let runs = 0;
    const { queue$: source$ } = controlledQueue(waitingAt(3));
    const shared$ = defer(() => {
      runs += 1;
      return source$;
    }).pipe(shareReplay({ bufferSize: 1, refCount: true }));
    const effects = shared$.subscribe();
    const { unmount } = render(
      <StrictMode>
        <WaitingRoom queue$={shared$} texts={ENGLISH} loadLostPlace={loadLostPlace} />
      </StrictMode>,
    );
    unmount();
    effects.unsubscribe();
    expect(runs).toBe(1);
  });
});
