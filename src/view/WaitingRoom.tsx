import type { Observable } from 'rxjs';
import { useEffect, useLayoutEffect, useMemo, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { useSubscription } from 'observable-hooks';
import type { QueueStatus } from '@waiting-room/streams';
import type { Texts } from '../i18n/texts';
import { estimatedText } from './estimated-text';
import { LOADING_VIEW, toWaitingView, type Notice, type WaitingView } from './waiting-view-model';
import { useDocumentTitle } from './use-document-title';
import { Announcer } from './Announcer';
import { LoadingBlock } from './LoadingBlock';
import { LazyBlock } from './LazyBlock';
import { EstimateBlock, PositionBlock, WaitingBlock } from './WaitingBlock';
import type { BlockSlots } from './block-slots';
import type { PageBlock } from './page-blocks';
import type { Controls } from './controls';
import type { LostPlaceView } from './lost-place';
import type { EventView } from './event-view';
import type { EventFacts } from '@waiting-room/streams/contract';
import { MessageBlock, type ShownMessage } from './MessageBlock';

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
  /** The loading block tells of the bot check while it runs (a room's own page may place that apart). */
  readonly checking?: boolean;
  /** A room's own page: the elements its blocks are rendered into, each apart; without, the default page. */
  readonly slots?: BlockSlots;
  /** How long the visitor may leave the page and keep the place, in minutes; absent: not said. */
  readonly awayMinutes?: number;
  /** The operator's message, the newest heard (null: none). */
  readonly message$?: Observable<ShownMessage>;
}

/** What the view needs of a scheduled event (`WaitingRoom`'s `event`). */
export interface PageEvent {
  readonly facts: EventFacts;
  readonly load: () => Promise<EventView>;
  readonly uuid: string;
}

/** The waiting page: renders the shared status stream. Replay, leave and report are the effects' job, not the view's. */
export function WaitingRoom({ queue$, texts: initial, loadLostPlace, loadControls, event, onShown, checking, slots, awayMinutes, message$ }: Props) {
  // What observable-hooks' useObservableState does with an observable, without the rest of that
  // hook (state from a function), which the page does not use and would load before the position.
  // The view imports nothing from rxjs, which stays in the start-up code: the subscription ends
  // with the effect that made it, so a StrictMode remount leaves nothing behind.
  const [view, setView] = useState<WaitingView>(LOADING_VIEW);
  useSubscription(queue$, (status) => setView(toWaitingView(status)));
  const [texts, setTexts] = useState(initial);
  const { t } = texts;
  const [message, setMessage] = useState<ShownMessage>();
  useEffect(() => {
    // Subscribed once in the document: a message already heard comes in just after the first
    // render, into a live region that is there, and so is announced.
    const subscription = message$?.subscribe(setMessage);
    return () => subscription?.unsubscribe();
  }, [message$]);
  // In the visitor's language as it is now, else the room's, else for any language.
  const messageText = message?.textFor(texts.lang) ?? '';
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
  if (slots)
    return (
      <OwnPage
        slots={slots}
        view={view}
        texts={texts}
        setTexts={setTexts}
        controls={controls}
        checking={checking}
        {...{ announcement, loadLostPlace, event, awayMinutes, messageText }}
      />
    );
  return (
    <>
      <Announcer text={announcement} />
      {notice && <NoticeLine texts={texts} notice={notice} />}
      <MessageBlock texts={texts} text={messageText} />
      {view.phase == 'loading' || (view.phase == 'prequeue' && !event) ? (
        <LoadingBlock texts={texts} />
      ) : view.phase == 'waiting' ? (
        <WaitingBlock texts={texts} position={view.position} estimated={view.estimated} updatedAt={view.updatedAt} awayMinutes={awayMinutes}>
          {controls && <controls.NotifyButton texts={texts} />}
          {controls && <controls.Handoff texts={texts} />}
        </WaitingBlock>
      ) : (
        <StatusBlock view={view} texts={texts} loadLostPlace={loadLostPlace} />
      )}
      {event && (view.phase == 'prequeue' || view.phase == 'waiting') && <LazyBlock load={event.load} args={[texts, event.facts, view, event.uuid]} />}
      {controls && view.phase == 'waiting' && <controls.CodeForm texts={texts} />}
      {controls && <controls.LanguageSwitch texts={texts} show={setTexts} />}
    </>
  );
}

function NoticeLine({ texts, notice }: { texts: Texts; notice: NonNullable<Notice> }) {
  return (
    <p className="wr-notice" role="alert">
      {texts.t(notice == 'connectionLost' ? 'page.connectionLost' : 'page.pollFailed')}
    </p>
  );
}

/** What shows in the loading block's place once the visitor has left the line: the place lost, released, or leaving. */
function StatusBlock({ view, texts, loadLostPlace }: { view: WaitingView; texts: Texts; loadLostPlace: Props['loadLostPlace'] }) {
  if (view.phase == 'lost') return <LazyBlock load={loadLostPlace} args={[texts, view.rejoin]} />;
  if (view.phase == 'moved')
    return (
      <section className="wr-block wr-moved" role="alert">
        <h1>{texts.t('handoff.moved.heading')}</h1>
        <p>{texts.t('handoff.moved.why')}</p>
      </section>
    );
  if (view.phase == 'prequeue' || view.phase == 'loading' || view.phase == 'waiting') return null;
  return (
    <section className="wr-block" role="status">
      <p>{texts.t(view.phase == 'released' ? 'page.released' : 'page.leaving')}</p>
    </section>
  );
}

interface OwnPageProps {
  readonly slots: BlockSlots;
  readonly view: WaitingView;
  readonly texts: Texts;
  readonly setTexts: (texts: Texts) => void;
  readonly controls: Controls | undefined;
  readonly checking: boolean | undefined;
  readonly announcement: string;
  readonly loadLostPlace: Props['loadLostPlace'];
  readonly event: PageEvent | null | undefined;
  readonly awayMinutes: number | undefined;
  readonly messageText: string;
}

/**
 * A room's own page: the same blocks, each rendered into the element its template placed for it
 * (a portal), or here, in the page's root, when the template has none for it. The live region and
 * the notice stay in the root. The blocks' static markup, written by the server so that the page
 * shows before the script runs, goes as the first render comes in, before it is painted.
 */
function OwnPage({ slots, view, texts, setTexts, controls, checking, announcement, loadLostPlace, event, awayMinutes, messageText }: OwnPageProps) {
  useLayoutEffect(() => slots.clearStatic(), [slots]);
  // The operator's words follow a switch of language, as the blocks do.
  useEffect(() => slots.showWords(texts.lang), [slots, texts.lang]);
  const place = (block: PageBlock, node: ReactNode) => {
    const element = slots.elements[block];
    return element ? createPortal(node, element, block) : node;
  };
  const notice = 'notice' in view && view.notice;
  const loading = view.phase == 'loading' || (view.phase == 'prequeue' && !event);
  const checkingApart = checking && slots.elements['bot-check'] !== undefined;
  const inEvent = event && (view.phase == 'prequeue' || view.phase == 'waiting');
  return (
    <>
      <Announcer text={announcement} />
      {notice && <NoticeLine texts={texts} notice={notice} />}
      {place('message', <MessageBlock texts={texts} text={messageText} />)}
      {loading && checkingApart && place('bot-check', <LoadingBlock texts={texts} />)}
      {place('loading', loading ? !checkingApart && <LoadingBlock texts={texts} /> : <StatusBlock view={view} texts={texts} loadLostPlace={loadLostPlace} />)}
      {view.phase == 'waiting' && (
        <>
          {place('position', <PositionBlock texts={texts} position={view.position} />)}
          {place(
            'estimate',
            <EstimateBlock texts={texts} estimated={view.estimated} updatedAt={view.updatedAt} awayMinutes={awayMinutes}>
              {controls && <controls.NotifyButton texts={texts} />}
              {controls && <controls.Handoff texts={texts} />}
            </EstimateBlock>,
          )}
        </>
      )}
      {inEvent && place(view.phase == 'prequeue' ? 'countdown' : 'verify', <LazyBlock load={event.load} args={[texts, event.facts, view, event.uuid]} />)}
      {controls && view.phase == 'waiting' && place('code', <controls.CodeForm texts={texts} />)}
      {controls && place('language', <controls.LanguageSwitch texts={texts} show={setTexts} />)}
    </>
  );
}
