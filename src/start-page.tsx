import { StrictMode, createElement } from 'react';
import { createRoot } from 'react-dom/client';
import type { ErrorReportingSettings } from '@waiting-room/streams/contract';
import { readPageConfig } from './config/read-page-config';
import { createErrorReporter, describeError, type Report } from './adapters/error-reporter';
import { loadOnce } from './adapters/load-once';
import type { PerformReplay } from './effects/perform-replay';
import { cleanAddressBar } from './effects/clean-address-bar';
import { runEffects } from './effects/run-effects';
import { createPageQueue$, type PageQueueDeps } from './page-queue';
import { pickTexts } from './view/texts';
import { WaitingRoom } from './view/WaitingRoom';
import type { ConfigProblemView } from './view/config-problem';
import type { LostPlaceView } from './view/lost-place';

export interface PageDeps extends PageQueueDeps {
  readonly window: Window;
  /** Loads the reporting SDK (lazily) and returns the function that sends one report. */
  readonly loadReporter: (settings: ErrorReportingSettings) => Promise<Report>;
  /** Loads the config-problem view (lazily: only a malformed config needs it). */
  readonly loadConfigProblem: () => Promise<ConfigProblemView>;
  /** Loads the code that performs a replay (lazily: only a released visitor needs it). */
  readonly loadReplay: () => Promise<PerformReplay>;
  /** Loads the lost-place view (lazily: only a visitor whose place was lost needs it). */
  readonly loadLostPlace: () => Promise<LostPlaceView>;
  readonly afterFirstPaint: (run: () => void) => void;
}

/**
 * Starts the waiting page in `root`: cleans the address bar, reads the config, then either shows
 * the config problem (and reports it) or subscribes the effects to the shared status stream and
 * renders it. Returns the function that stops everything.
 */
export function startPage(root: HTMLElement, deps: PageDeps): () => void {
  const { window: win } = deps;
  const { document: doc, location, history } = win;
  const texts = pickTexts(win.navigator.language);
  doc.documentElement.lang = texts.lang;
  // Read before the clean-up; the hash is kept on the replay target.
  const hash = location.hash;
  cleanAddressBar(location, history);
  const result = readPageConfig(doc, location.origin);
  const report = createErrorReporter(result.ok ? result.config.errorReporting : result.errorReporting, {
    load: deps.loadReporter,
    afterFirstPaint: deps.afterFirstPaint,
    console,
  });
  const reactRoot = createRoot(root);
  if (!result.ok) {
    report(`Waiting room config invalid: ${result.problems.join('; ')}`);
    // The view is loaded now, from a file of its own; once stopped, it is no longer shown.
    let stopped = false;
    deps.loadConfigProblem().then(
      (view) => stopped || reactRoot.render(view(createElement, texts.lang, result.problems)),
      (error) => report(`Waiting room config problem view could not load: ${describeError(error)}`),
    );
    return () => {
      stopped = true;
      reactRoot.unmount();
    };
  }
  const { config } = result;
  result.warnings.forEach((warning) => console.warn('[waiting-room]', warning));
  const queue$ = createPageQueue$(config, hash, {
    ...deps,
    onSourceError: (source, error) => report(`Waiting room source ${source} failed: ${describeError(error)}`),
  });
  const loadReplay = loadOnce(deps.loadReplay);
  // Fetched once the page has painted, so that the release finds it there; a release that comes
  // first waits for it. A failed prefetch is silent: the replay loads again and reports a failure.
  if (config.queue.uri !== null) deps.afterFirstPaint(() => void loadReplay().catch(() => undefined));
  const effects = runEffects(queue$, { location, history, document: doc, csrfToken: config.csrfToken, report, loadReplay });
  // Loaded when a place is lost; a failure is reported once per load.
  const loadLostPlace = loadOnce(() =>
    deps.loadLostPlace().catch((error: unknown) => {
      report(`Waiting room lost-place view could not load: ${describeError(error)}`);
      throw error;
    }),
  );
  reactRoot.render(
    <StrictMode>
      <WaitingRoom queue$={queue$} texts={texts} loadLostPlace={loadLostPlace} />
    </StrictMode>,
  );
  return () => {
    reactRoot.unmount();
    effects.unsubscribe();
  };
}
