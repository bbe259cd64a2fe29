import type { ErrorReportingSettings } from '@waiting-room/streams/contract';

/** How serious a report is; without one, an error. */
export type ReportLevel = 'error' | 'warning';

/** Sends one message to the error-reporting service, at `level` (an error by default). */
export type Report = (message: string, level?: ReportLevel) => void;

export interface ErrorReporterDeps {
  /** Loads the reporting SDK and returns the function that sends one report. */
  readonly load: (settings: ErrorReportingSettings) => Promise<Report>;
  /** Runs the load once the page has started up (its position shown), off the critical path. */
  readonly afterStartUp: (run: () => void) => void;
  readonly console: Pick<Console, 'error'>;
}

/** Reports kept while the SDK is not ready; past it, later ones go to the console only. */
const MAX_QUEUED_REPORTS = 20;

/**
 * Error reporting that keeps the SDK off the critical path: every report is logged to the
 * console at once; with a DSN the SDK is loaded once the page has started up, or at the first
 * report if that comes sooner (a page that fails before showing the position may leave 2 s
 * later), and reports made before it is ready are queued and sent, in order, as soon as it is.
 *
 * A load that fails (the server restarting as the page asked for the SDK) is tried again at the
 * next report, its queue kept: the reports that matter most come right after such a moment.
 */
export function createErrorReporter(settings: ErrorReportingSettings, deps: ErrorReporterDeps): Report {
  let send: Report | null = null;
  let loading = false;
  const queued: Array<Parameters<Report>> = [];
  const load = () => {
    if (loading) return;
    loading = true;
    deps.load(settings).then(
      (ready) => {
        send = ready;
        queued.splice(0).forEach((args) => ready(...args));
      },
      (error) => {
        loading = false;
        deps.console.error('[waiting-room] error reporting unavailable', error);
      },
    );
  };
  if (settings.dsn) deps.afterStartUp(load);
  return (message, level) => {
    deps.console.error('[waiting-room]', message);
    if (!settings.dsn) return;
    if (send) return send(message, level);
    if (queued.length < MAX_QUEUED_REPORTS) queued.push([message, level]);
    load();
  };
}

/** A short readable text for anything thrown or emitted as an error. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(JSON.stringify(error)).slice(0, 500);
  } catch {
    return String(error);
  }
}
