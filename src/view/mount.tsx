/**
 * The React side of the page, in a file of its own: the start-up code opens the realtime
 * connection and starts the first queue_info call without waiting for React, which is most of
 * the page's bytes; this file renders the status stream once it has arrived.
 */
import { StrictMode, createElement, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { Observable } from 'rxjs';
import type { QueueStatus } from '@waiting-room/streams';
import type { Texts } from '../i18n/texts';
import type { ConfigProblemView } from './config-problem';
import type { Controls, ReactKit } from './controls';
import type { LostPlaceView } from './lost-place';
import { WaitingRoom, type PageEvent } from './WaitingRoom';
import { findBlockSlots } from './block-slots';
import type { ShownMessage } from './MessageBlock';

/** The language switch and the notify button, once loaded, made with this React. */
export type LoadControls = () => Promise<(react: ReactKit) => Controls>;

/** What the page shows in its root element. */
export interface PageView {
  /** The waiting room, rendering the shared status stream (its latest status at once). */
  showWaitingRoom(
    queue$: Observable<QueueStatus>,
    texts: Texts,
    loadLostPlace: () => Promise<LostPlaceView>,
    loadControls: LoadControls,
    event?: PageEvent | null,
    /** Told once the position (or a pre-queue) is in the document. */
    onShown?: () => void,
    /** The bot check runs: the loading block says so. */
    checking?: boolean,
    /** How long the visitor may leave the page and keep the place (the page config's `awayMinutes`). */
    awayMinutes?: number,
    /** The operator's message, the newest heard. */
    message$?: Observable<ShownMessage>,
  ): void;
  /** The config problem, with the view loaded for it. */
  showConfigProblem(view: ConfigProblemView, texts: Texts, problems: readonly string[]): void;
  unmount(): void;
}

/** Takes over `root` (its static loading block stays until the first render replaces it). */
export function mountView(root: HTMLElement): PageView {
  const reactRoot = createRoot(root);
  // A room's own page places the blocks apart (docs/own-page.md).
  const slots = findBlockSlots(root.ownerDocument);
  return {
    showWaitingRoom: (queue$, texts, loadLostPlace, loadControls, event, onShown, checking, awayMinutes, message$) => {
      const controls = () => loadControls().then((make) => make({ h: createElement, useState }));
      reactRoot.render(
        <StrictMode>
          <WaitingRoom
            queue$={queue$}
            texts={texts}
            loadLostPlace={loadLostPlace}
            loadControls={controls}
            event={event}
            onShown={onShown}
            checking={checking}
            slots={slots}
            awayMinutes={awayMinutes}
            message$={message$}
          />
        </StrictMode>,
      );
    },
    showConfigProblem: (view, texts, problems) => reactRoot.render(view(createElement, texts, problems)),
    unmount: () => reactRoot.unmount(),
  };
}

export type MountView = typeof mountView;
