import { ReplaySubject, map, of, switchMap, timer } from 'rxjs';
import { messageTextFor, newerMessage, type ErrorReportingSettings, type LanguageJson, type RoomMessageJson } from '@waiting-room/streams/contract';
import { readPageConfig } from './config/read-page-config';
import { createErrorReporter, describeError, type Report } from './adapters/error-reporter';
import { loadOnce } from './adapters/load-once';
import type { PerformReplay } from './effects/perform-replay';
import { cleanAddressBar } from './effects/clean-address-bar';
import { runEffects } from './effects/run-effects';
import { backSignals } from './adapters/back';
import { createPageQueue$, type PageQueueDeps } from './page-queue';
import { checkingTexts, textsOf } from './i18n/texts';
import type { CreateControls } from './view/controls';
import type { QrCode } from './view/qr-code';
import type { ConfigProblemView } from './view/config-problem';
import type { LostPlaceView } from './view/lost-place';
import type { EventView } from './view/event-view';
import type { ShownMessage } from './view/MessageBlock';
import type { LoadControls, MountView, PageView } from './view/mount';

export interface PageDeps extends PageQueueDeps {
  readonly window: Window;
  /** Loads the React view (a file of its own, fetched while the connection opens). */
  readonly loadView: () => Promise<MountView>;
  /** Loads the reporting SDK (lazily) and returns the function that sends one report. */
  readonly loadReporter: (settings: ErrorReportingSettings) => Promise<Report>;
  /** Loads the config-problem view (lazily: only a malformed config needs it). */
  readonly loadConfigProblem: () => Promise<ConfigProblemView>;
  /** Loads the code that performs a replay (lazily: only a released visitor needs it). */
  readonly loadReplay: () => Promise<PerformReplay>;
  /** Loads the lost-place view (lazily: only a visitor whose place was lost needs it). */
  readonly loadLostPlace: () => Promise<LostPlaceView>;
  /** Loads English (lazily: only a config without a language needs it). */
  readonly loadEnglish: () => Promise<LanguageJson>;
  /** Loads the language switch and "tell me when it is my turn" (lazily: the position needs neither). */
  readonly loadControls: () => Promise<CreateControls>;
  /** Loads the QR code's drawing (lazily: only a visitor who opens "continue on another device" needs it). */
  readonly loadQrCode: () => Promise<QrCode>;
  /** Loads a scheduled event's view (lazily: only a visitor in a pre-queue needs it). */
  readonly loadEventView: () => Promise<EventView>;
  readonly afterFirstPaint: (run: () => void) => void;
}

/**
 * Starts the waiting page in `root`: cleans the address bar, reads the config, then either shows
 * the config problem (and reports it) or subscribes the effects to the shared status stream —
 * which starts the first queue_info call at once, and opens the realtime connection once the
 * position shows — and renders the stream once the view has loaded. What the position does not
 * need (the realtime client, the reporting SDK, the replay code, the controls) is fetched once
 * the status has left loading, the view shows it and the page has painted it. Returns the function that stops everything.
 */
export function startPage(root: HTMLElement, deps: PageDeps): () => void {
  const { window: win } = deps;
  const { document: doc, location, history } = win;
  // Read before the clean-up; the hash is kept on the replay target.
  const hash = location.hash;
  cleanAddressBar(location, history);
  const result = readPageConfig(doc, location.origin);
  // Started up once the view has put the position (or a pre-queue's opening) in the document, and
  // then painted: what waits for the start-up would otherwise share the link with the view, or
  // the main thread with its first render, on the way to the position.
  let positionShown: () => void = () => undefined;
  const startUp = new Promise<void>((resolve) => (positionShown = resolve));
  const afterStartUp = (run: () => void) => void startUp.then(() => deps.afterFirstPaint(run));
  const report = createErrorReporter(result.ok ? result.config.errorReporting : result.errorReporting, {
    load: deps.loadReporter,
    afterStartUp,
    console,
  });
  // The server's language (the page's <html lang dir> already says it), or English, from a file
  // of its own, for a server that sent none.
  const language = result.ok ? result.config.language : result.language;
  const texts = (language ? Promise.resolve(language) : deps.loadEnglish()).then(textsOf);
  // The view, once loaded; nothing is shown once stopped.
  let view: PageView | undefined;
  let stopped = false;
  const show = (mount: MountView) => (view ??= mount(root));
  const stopView = () => {
    stopped = true;
    view?.unmount();
  };
  if (!result.ok) {
    report(`Waiting room config invalid: ${result.problems.join('; ')}`);
    // The view is loaded now, from a file of its own.
    Promise.all([deps.loadView(), deps.loadConfigProblem(), texts]).then(
      ([mount, problemView, loaded]) => stopped || show(mount).showConfigProblem(problemView, loaded, result.problems),
      (error) => report(`Waiting room config problem view could not load: ${describeError(error)}`),
    );
    return stopView;
  }
  const { config } = result;
  result.warnings.forEach((warning) => console.warn('[waiting-room]', warning));
  // The realtime client is loaded once the position shows and the page has painted it, or once it
  // cannot show yet (the view or the first queue_info failed): before, it would share the link
  // with the view, and the main thread with its first render, while the position needs neither
  // the connection nor its code (the first queue_info goes out at once). With a bot check the first
  // status waits for the connection: loaded at once.
  let connect: () => void = () => undefined;
  const connectWhen = config.altcha ? Promise.resolve() : new Promise<void>((resolve) => (connect = resolve));
  const connectAfterPaint = () => deps.afterFirstPaint(connect);
  afterStartUp(connect);
  // The operator's message: the config's, then the newest heard (the largest version), replayed to
  // the view whenever it loads.
  let newest = config.message;
  const message$ = new ReplaySubject<ShownMessage>(1);
  const shownMessage = (message: RoomMessageJson | null): ShownMessage => ({ textFor: (locale) => messageTextFor(message, locale) });
  message$.next(shownMessage(newest));
  const onMessage = (heard: RoomMessageJson) => {
    const kept = newerMessage(newest, heard);
    if (kept !== newest) message$.next(shownMessage((newest = kept)));
  };
  const queue$ = createPageQueue$(config, hash, {
    ...deps,
    onMessage,
    loadPusher: () => connectWhen.then(deps.loadPusher),
    onQueueInfoFailed: connectAfterPaint,
    onSourceError: (source, error) => report(`Waiting room source ${source} failed: ${describeError(error)}`),
    back$: backSignals(deps.window),
  });
  const loadReplay = loadOnce(deps.loadReplay);
  // Fetched once the position shows, so that the release finds it there; a release that comes
  // first waits for it. A failed prefetch is silent: the replay loads again and reports a failure.
  if (config.queue.uri !== null) afterStartUp(() => void loadReplay().catch(() => undefined));
  // First, so that the connection opens before anything else is done.
  const effects = runEffects(queue$, { location, history, document: doc, csrfToken: config.csrfToken, report, loadReplay });
  // Loaded when a place is lost; a failure is reported once per load.
  const loadLostPlace = loadOnce(() =>
    deps.loadLostPlace().catch((error: unknown) => {
      report(`Waiting room lost-place view could not load: ${describeError(error)}`);
      throw error;
    }),
  );
  // Fetched once the position shows: it needs neither control.
  const loadControls: LoadControls = loadOnce(() =>
    new Promise<void>((resolve) => afterStartUp(resolve)).then(deps.loadControls).then(
      (create) => (react) =>
        create(react, {
          window: win,
          fetch: deps.fetch,
          queue$,
          keep: (kept) => effects.add(kept),
          report,
          textsOf,
          codeRoute: config.routes.queue_request,
          csrfToken: config.csrfToken,
          ...(config.handoffRoute !== null && { handoff: { route: config.handoffRoute, csrfToken: config.csrfToken, uuid: config.queue.uuid } }),
          loadQrCode: deps.loadQrCode,
        }),
    ),
  );
  // Beyond the spec: in a scheduled event's pre-queue the view counts down to the opening, so it
  // gets the status again every second meanwhile (on the page's scheduler, as every timer).
  const { event } = config;
  const shown$ = event
    ? queue$.pipe(switchMap((status) => (status.kind == 'loading' && status.opensAt ? timer(0, 1000, deps.scheduler).pipe(map(() => status)) : of(status))))
    : queue$;
  const pageEvent = event && { facts: event, load: loadOnce(deps.loadEventView), uuid: config.queue.uuid };
  // Without the view the page keeps its static loading block, and still replays on release.
  // While the bot check runs, the loading block says so.
  const shown = config.altcha ? texts.then(checkingTexts) : texts;
  Promise.all([deps.loadView(), shown]).then(
    ([mount, loaded]) =>
      stopped ||
      show(mount).showWaitingRoom(
        shown$,
        loaded,
        loadLostPlace,
        loadControls,
        pageEvent,
        positionShown,
        config.altcha !== undefined,
        config.awayMinutes,
        message$.asObservable(),
      ),
    (error) => {
      report(`Waiting room view could not load: ${describeError(error)}`);
      connectAfterPaint();
    },
  );
  return () => {
    stopView();
    effects.unsubscribe();
  };
}
