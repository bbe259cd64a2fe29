import { act, render } from '@testing-library/react';
import { BehaviorSubject } from 'rxjs';
import type { QueueStatus } from '@waiting-room/streams';
import { WaitingRoom } from '../../src/view/WaitingRoom';
import { findBlockSlots } from '../../src/view/block-slots';
import { checkingTexts } from '../../src/i18n/texts';
import { lostPlaceView } from '../../src/view/lost-place';
import { ENGLISH, FRENCH } from './fakes/texts';

const HEALTHY = { connection: 'connected', failedPolls: 0 } as const;
const WAITING = { kind: 'waiting', position: 7, estimated: 3, updatedAt: Date.UTC(2025, 0, 1), ...HEALTHY } as QueueStatus;

/**
 * A room's own page as the server writes it (server/http/page-template.ts): the operator's
 * markup around the block elements, the static loading block in its own, and the page's root.
 */
function ownPage(blocks: readonly string[]): HTMLElement {
  document.body.innerHTML =
    '<div id="waiting-room"><p class="wr-sr" aria-live="polite"></p></div><header>Lumen Shop</header>' +
    blocks
      .map(
        (block) =>
          `<div data-waiting-room-block="${block}">${block == 'loading' ? '<section class="wr-block wr-loading static" role="status"><p>Finding your place in line…</p></section>' : ''}</div>`,
      )
      .join('');
  return document.getElementById('waiting-room')!;
}

const slot = (block: string) => document.querySelector(`[data-waiting-room-block="${block}"]`)!;

afterEach(() => {
  document.body.innerHTML = '';
  document.title = '';
});

describe("view: a room's own page", () => {
  it('should render the loading block in its place, replacing the static one, then the position and the estimate in theirs', () => {
    const root = ownPage(['loading', 'position', 'estimate']);
    const slots = findBlockSlots(document)!;
    const status$ = new BehaviorSubject<QueueStatus>({ kind: 'loading', ...HEALTHY });
    render(<WaitingRoom queue$={status$} texts={ENGLISH} loadLostPlace={async () => lostPlaceView} slots={slots} />, { container: root });

    expect(slot('loading').querySelectorAll('.wr-loading')).toHaveLength(1);
    expect(slot('loading').querySelector('.static')).toBeNull();
    expect(document.querySelector('header')!.textContent).toBe('Lumen Shop');

    act(() => status$.next(WAITING));
    expect(slot('loading').children).toHaveLength(0);
    expect(slot('position').querySelector('.wr-waiting .wr-position strong')!.textContent).toBe('7');
    expect(slot('position').querySelector('.wr-estimated')).toBeNull();
    expect(slot('estimate').querySelector('.wr-estimated')!.textContent).toBe('Estimated wait: about 3 minutes');
    // The live region stays in the page's root, and says the position.
    expect(root.querySelector('[aria-live="polite"]')!.textContent).toContain('7');
  });

  it('should say the bot check runs in its own place, when the template has one', () => {
    const root = ownPage(['loading', 'position', 'estimate', 'bot-check']);
    const status$ = new BehaviorSubject<QueueStatus>({ kind: 'loading', ...HEALTHY });
    render(
      <WaitingRoom queue$={status$} texts={checkingTexts(ENGLISH)} checking loadLostPlace={async () => lostPlaceView} slots={findBlockSlots(document)} />,
      {
        container: root,
      },
    );

    expect(slot('bot-check').textContent).toContain('Checking your browser');
    expect(slot('loading').children).toHaveLength(0);
  });

  it('should show the release in the loading block’s place', () => {
    const root = ownPage(['loading', 'position', 'estimate']);
    const status$ = new BehaviorSubject<QueueStatus>(WAITING);
    render(<WaitingRoom queue$={status$} texts={ENGLISH} loadLostPlace={async () => lostPlaceView} slots={findBlockSlots(document)} />, { container: root });

    act(() => status$.next({ kind: 'released', uuid: 'u' } as unknown as QueueStatus));
    expect(slot('loading').textContent).toBe(ENGLISH.t('page.released'));
    expect(slot('position').children).toHaveLength(0);
  });

  it("should write the operator's words in the language shown, or the room's fallback language", () => {
    const root = ownPage(['loading', 'position', 'estimate']);
    document.body.insertAdjacentHTML(
      'beforeend',
      '<h2><span data-waiting-room-word="headline">Thanks</span></h2><p><span data-waiting-room-word="footer">Bye</span></p>' +
        '<script id="waiting-room-words" type="application/json">{"words": {"en": {"headline": "Thanks", "footer": "Bye"}, "fr": {"headline": "Merci"}}, "fallback": "en"}</script>',
    );
    render(
      <WaitingRoom
        queue$={new BehaviorSubject<QueueStatus>(WAITING)}
        texts={FRENCH}
        loadLostPlace={async () => lostPlaceView}
        slots={findBlockSlots(document)}
      />,
      {
        container: root,
      },
    );

    expect(document.querySelector('h2')!.textContent).toBe('Merci');
    expect(document.querySelector('p span')!.textContent).toBe('Bye');
  });

  it('should find no block elements on the default page', () => {
    document.body.innerHTML = '<main id="waiting-room" class="wr"></main>';
    expect(findBlockSlots(document)).toBeUndefined();
  });
});
