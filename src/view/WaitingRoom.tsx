import type { Observable } from 'rxjs';
import { useEffect, useMemo, useState } from 'react';
import { useSubscription } from 'observable-hooks';
import type { QueueStatus } from '@waiting-room/streams';
import type { Texts } from '../i18n/texts';
import { estimatedText } from './estimated-text';
import { LOADING_VIEW, toWaitingView, type WaitingView } from './waiting-view-model';
import { useDocumentTitle } from './use-document-title';
import { Announcer } from './Announcer';
import { LoadingBlock } from './LoadingBlock';
import { LazyBlock } from './LazyBlock';
import { WaitingBlock } from './WaitingBlock';
import type { Controls } from './controls';
import type { LostPlaceView } from './lost-place';
import type { EventView } from './event-view';
import type { EventFacts } from '@waiting-room/streams/contract';

interface Props {
  readonly queue$: Observable<QueueStatus>;
  /** The texts to start with (the page config's language). */
  readonly texts: Texts;
  /** Loads the lost-place view, when a place is lost (a file of its own). */
  readonly loadLostPlace: () => Promise<LostPlaceView>;
  /** Loads the language switch and the notify button, once the position shows (a file of its own). */
  readonly loadControls?: () => Promise<Controls>;
  /** Beyond the spec: the scheduled event whose pre-queue the visitor entered, its view (a file of its own), and the visitor's uuid. */
  readonly event?: PageEvent | null;
  /** Told once the page shows more than its loading block (the position, or a pre-queue), after the change is in the document. */
  readonly onShown?: () => void;
}

/** What the view needs of a scheduled event (`WaitingRoom`'s `event`). */
export interface PageEvent {
  readonly facts: EventFacts;
  readonly load: () => Promise<EventView>;
  readonly uuid: string;
}

/** The waiting page: renders the shared status stream. Replay, leave and report are the effects' job, not the view's. */
export function WaitingRoom({ queue$, texts: initial, loadLostPlace, loadControls, event, onShown }: Props) {
  // What observable-hooks' useObservableState does with an observable, without the rest of that
  // hook (state from a function), which the page does not use and would load before the position.
  // The view imports nothing from rxjs, which stays in the start-up code: the subscription ends
  // with the effect that made it, so a StrictMode remount leaves nothing behind.
  const [view, setView] = useState<WaitingView>(LOADING_VIEW);
  useSubscription(queue$, (status) => setView(toWaitingView(status)));
  const [texts, setTexts] = useState(initial);
  const { t } = texts;
  const position = view.phase == 'waiting' ? view.position : 0;
  useDocumentTitle(position ? t('page.tabTitle', { position }) : t('page.title'));
  // Announced once per change of the position (or of the language), never for a poll that
  // changes nothing or for a new estimate alone: a screen reader is not interrupted for that.
  const estimated = view.phase == 'waiting' ? view.estimated : 0;
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the estimate alone must not announce again
  const announcement = useMemo(() => (position ? `${t('page.announce', { position })} ${estimatedText(texts, estimated)}` : ''), [position, texts]);
  const leftLoading = view.phase != 'loading';
  useEffect(() => {
    if (leftLoading) onShown?.();
  }, [leftLoading, onShown]);
  const notice = 'notice' in view && view.notice;
  const [controls, setControls] = useState<Controls>();
  useEffect(() => {
    let shown = true;
    loadControls?.().then(
      (loaded) => shown && setControls(loaded),
      () => undefined,
    );
    return () => {
      shown = false;
    };
  }, [loadControls]);
  return (
    <>
      <Announcer text={announcement} />
      {notice && (
        <p className="wr-notice" role="alert">
          {t(notice == 'connectionLost' ? 'page.connectionLost' : 'page.pollFailed')}
        </p>
      )}
      {view.phase == 'loading' || (view.phase == 'prequeue' && !event) ? (
        <LoadingBlock texts={texts} />
      ) : view.phase == 'waiting' ? (
        <WaitingBlock texts={texts} position={view.position} estimated={view.estimated} updatedAt={view.updatedAt}>
          {controls && <controls.NotifyButton texts={texts} />}
        </WaitingBlock>
      ) : view.phase == 'lost' ? (
        <LazyBlock load={loadLostPlace} args={[texts, view.rejoin]} />
      ) : view.phase == 'prequeue' ? null : (
        <section className="wr-block" role="status">
          <p>{t(view.phase == 'released' ? 'page.released' : 'page.leaving')}</p>
        </section>
      )}
      {event && (view.phase == 'prequeue' || view.phase == 'waiting') && <LazyBlock load={event.load} args={[texts, event.facts, view, event.uuid]} />}
      {controls && <controls.LanguageSwitch texts={texts} show={setTexts} />}
    </>
  );
}
