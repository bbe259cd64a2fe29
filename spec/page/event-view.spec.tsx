import { act, render, screen } from '@testing-library/react';
import { BehaviorSubject } from 'rxjs';
import type { QueueStatus } from '@waiting-room/streams';
import { EVENT_ROUTES, type EventFacts } from '@waiting-room/streams/contract';
import { WaitingRoom } from '../../src/view/WaitingRoom';
import { eventView, timeLeft, verifyAddress } from '../../src/view/event-view';
import { lostPlaceView } from '../../src/view/lost-place';
import { ENGLISH, FRENCH, textsFor } from './fakes/texts';
import { settle } from './fakes/fake-fetch';

const NOW = Date.UTC(2030, 4, 1, 9, 55, 55);
const OPENS_AT = Date.UTC(2030, 4, 1, 10, 0, 0);
const UUID = '0b7c5b2e-1f7d-4d8e-9a3c-2f1e6b7a9c10';
const COMMITMENT = 'ab'.repeat(32);
const DROP: EventFacts = { id: 'spring-drop-1a2b3c', name: 'Spring drop', opensAt: OPENS_AT, shuffle: true, commitment: COMMITMENT };
const HEALTHY = { connection: 'connected', failedPolls: 0 } as const;
const inPrequeue = (opensAt = OPENS_AT): QueueStatus => ({ kind: 'loading', ...HEALTHY, opensAt });
const waitingAt = (position: number): QueueStatus => ({ kind: 'waiting', position, estimated: 2, updatedAt: NOW, ...HEALTHY });

async function show(first: QueueStatus, event: EventFacts | null = DROP, texts = ENGLISH) {
  const status$ = new BehaviorSubject<QueueStatus>(first);
  const load = jest.fn(async () => eventView);
  render(<WaitingRoom queue$={status$} texts={texts} loadLostPlace={async () => lostPlaceView} event={event && { facts: event, load, uuid: UUID }} />);
  await tick(0);
  return { status$, load };
}

/** Lets `ms` pass on the page's clock, and the renders it brings. */
async function tick(ms: number) {
  await act(async () => {
    jest.advanceTimersByTime(ms);
    await settle();
  });
}

beforeEach(() => {
  jest.useFakeTimers({ now: NOW });
});
afterEach(() => {
  jest.useRealTimers();
});

describe("view: a scheduled event's pre-queue (beyond the specification)", () => {
  it('should say the visitor is in, when the sale opens in their time zone with a countdown, and that arriving earlier gives no advantage', async () => {
    await show(inPrequeue());
    const block = document.querySelector('.wr-prequeue')!;
    expect(block.querySelector('h1')?.textContent).toBe('You are in');
    expect(block.textContent).toContain('Spring drop');
    // In the visitor's time zone (the test's, the browser's own), named.
    const when = new Intl.DateTimeFormat('en', {
      year: 'numeric',
      month: 'long',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZoneName: 'short',
    }).format(OPENS_AT);
    expect(block.textContent).toContain(`The sale opens on ${when}.`);
    expect(when).toMatch(/2030.*\b[A-Z]{2,5}\b|GMT/);
    expect(screen.getByRole('timer').textContent).toBe('Opens in 4 min 5 sec');
    expect(block.textContent).toContain('arriving earlier gives no advantage');
    expect(block.querySelector('.wr-commitment code')?.textContent).toBe(COMMITMENT);
    // No position yet: neither a waiting block nor a position in the tab title.
    expect(document.querySelector('.wr-waiting')).toBeNull();
    expect(document.title).toBe('Waiting room');
  });

  it('should count down on each status the page gives it (every second), then say the order is being drawn once the opening has passed', async () => {
    const { status$ } = await show(inPrequeue(NOW + 3000));
    expect(screen.getByRole('timer').textContent).toBe('Opens in 3 sec');
    // The start-up code gives the view the status again every second in a pre-queue.
    const again = async (ms: number) => {
      await tick(ms);
      act(() => status$.next(inPrequeue(NOW + 3000)));
    };
    await again(1000);
    expect(screen.getByRole('timer').textContent).toBe('Opens in 2 sec');
    await again(2000);
    expect(screen.getByRole('timer').textContent).toBe('The sale is open: drawing the order…');
  });

  it('should say places are kept in order of arrival when the pre-queue is not shuffled, in French too', async () => {
    await show(inPrequeue(), { ...DROP, shuffle: false, commitment: null }, FRENCH);
    const block = document.querySelector('.wr-prequeue')!;
    expect(block.querySelector('h1')?.textContent).toBe('Vous êtes inscrit');
    expect(screen.getByRole('timer').textContent).toBe(`Ouverture dans ${timeLeft('fr', 245_000)}`);
    expect(block.textContent).toContain('Les places sont gardées dans l’ordre d’arrivée.');
    expect(block.textContent).not.toContain('tirage');
    expect(block.querySelector('.wr-commitment')).toBeNull();
  });

  it('should show the position once drawn, with the way to verify the draw', async () => {
    const { status$ } = await show(inPrequeue());
    await act(async () => {
      status$.next(waitingAt(57));
      await settle();
    });
    expect(document.querySelector('.wr-prequeue')).toBeNull();
    expect(document.querySelector('.wr-position strong')?.textContent).toBe('57');
    const link = screen.getByRole('link', { name: 'Verify the draw' });
    expect(link.getAttribute('href')).toBe(`/events/spring-drop-1a2b3c/verify#uuid=${UUID}&commitment=${COMMITMENT}`);
    expect(link.getAttribute('rel')).toBe('noopener');
  });

  it('should offer no verification for a pre-queue kept in order of arrival, and nothing of an event without one', async () => {
    const { status$ } = await show(waitingAt(3), { ...DROP, shuffle: false });
    expect(screen.queryByRole('link')).toBeNull();
    act(() => status$.next(inPrequeue()));
    await tick(0);
    expect(document.querySelector('.wr-prequeue')).not.toBeNull();
    const other = await show(inPrequeue(), null);
    expect(other.load).not.toHaveBeenCalled();
  });
});

describe('event view helpers', () => {
  it.each([
    [0, '0 sec'],
    [999, '1 sec'],
    [60_000, '1 min'],
    [65_000, '1 min 5 sec'],
    [3_599_000, '59 min 59 sec'],
    [3_900_000, '1 hr 5 min'],
    [90_000_000, '1 day 1 hr'],
    [-5, '0 sec'],
  ])('should write %i ms left as "%s", to the second, with the language\'s own units', (ms, text) => {
    expect(timeLeft('en', ms)).toBe(text);
  });

  it('should write the time left in every language of the catalogue, with its own unit names', () => {
    const unit = (lang: string, name: string, amount: number) =>
      new Intl.NumberFormat(lang, { style: 'unit', unit: name, unitDisplay: 'short' }).format(amount);
    for (const lang of ['fr', 'de', 'ja', 'ru', 'he']) {
      const left = timeLeft(lang, 3_900_000);
      expect(left).toContain(unit(lang, 'hour', 1));
      expect(left).toContain(unit(lang, 'minute', 5));
      expect(left).not.toContain('hr');
    }
    const arabic = textsFor('ar');
    expect(arabic.t('event.opensIn', { left: timeLeft(arabic.lang, 9_000) })).toBe('يبدأ خلال 9 ث');
  });

  it("should link to the contract's verify route, with the uuid and the commitment in the fragment no server sees", () => {
    const address = verifyAddress(DROP, UUID);
    expect(address.split('#')[0]).toBe(EVENT_ROUTES.verify.replace('{id}', DROP.id));
    expect(new URLSearchParams(address.split('#')[1])).toEqual(new URLSearchParams({ uuid: UUID, commitment: COMMITMENT }));
    expect(verifyAddress({ ...DROP, commitment: null }, UUID)).toBe(`/events/${DROP.id}/verify#uuid=${UUID}`);
  });
});
