import type { Observable } from 'rxjs';
import { useEffect, useState } from 'react';
import { useSubscription } from 'observable-hooks';
import type { QueueStatus } from '@waiting-room/streams';
import type { Texts } from './texts';
import { LOADING_VIEW, toWaitingView, type WaitingView } from './waiting-view-model';
import { useDocumentTitle } from './use-document-title';
import { formatCount, prepareFormats } from './format';
import { Announcer } from './Announcer';
import { LoadingBlock } from './LoadingBlock';
import { LostBlock } from './LostBlock';
import { WaitingBlock } from './WaitingBlock';
import type { LostPlaceView } from './lost-place';

interface Props {
  readonly queue$: Observable<QueueStatus>;
  readonly texts: Texts;
  /** Loads the lost-place view, when a place is lost (a file of its own). */
  readonly loadLostPlace: () => Promise<LostPlaceView>;
}

/** The waiting page: renders the shared status stream. Replay, leave and report are the effects' job, not the view's. */
export function WaitingRoom({ queue$, texts, loadLostPlace }: Props) {
  // What observable-hooks' useObservableState does with an observable, without the rest of that
  // hook (state from a function), which the page does not use and would load before the position.
  // The view imports nothing from rxjs, which stays in the start-up code: the subscription ends
  // with the effect that made it, so a StrictMode remount leaves nothing behind.
  const [view, setView] = useState<WaitingView>(LOADING_VIEW);
  useSubscription(queue$, (status) => setView(toWaitingView(status)));
  useEffect(() => prepareFormats(texts.lang), [texts.lang]);
  const position = view.phase == 'waiting' ? formatCount(texts.lang, view.position) : '';
  useDocumentTitle(position ? texts.tabTitle(position) : texts.title);
  const announcement = view.phase == 'waiting' ? `${texts.position}: ${position}. ${texts.estimated(view.estimated)}` : '';
  const notice = 'notice' in view && view.notice;
  return (
    <>
      <Announcer text={announcement} />
      {notice && (
        <p className="wr-notice" role="alert">
          {texts[notice]}
        </p>
      )}
      {view.phase == 'loading' ? (
        <LoadingBlock texts={texts} />
      ) : view.phase == 'waiting' ? (
        <WaitingBlock texts={texts} position={view.position} estimated={view.estimated} updatedAt={view.updatedAt} />
      ) : view.phase == 'lost' ? (
        <LostBlock load={loadLostPlace} lang={texts.lang} rejoin={view.rejoin} />
      ) : (
        <section className="wr-block" role="status">
          <p>{texts[view.phase]}</p>
        </section>
      )}
    </>
  );
}
