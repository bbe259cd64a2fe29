import type { ErrorReportingSettings } from '@waiting-room/streams/contract';

/** How serious a report is; without one, an error. */
export type ReportLevel = 'error' | 'warning';

/** Sends one message to the error-reporting service, at `level` (an error by default). */
export type Report = (message: string, level?: ReportLevel) => void;

export interface ErrorReporterDeps {
  /** Loads the reporting SDK and returns the function that sends one report. */
  readonly load: (settings: ErrorReportingSettings) => Promise<Report>;
  /** Runs the load once the page has painted. */
  readonly afterFirstPaint: (run: () => void) => void;
  readonly console: Pick<Console, 'error'>;
}

/**
 * Error reporting that keeps the SDK off the critical path: every report is logged to the
 * console at once; with a DSN the SDK is loaded after the first paint, and reports made before
 * it is ready are queued and sent, in order, as soon as it is.
 */
export function createErrorReporter(settings: ErrorReportingSettings, deps: ErrorReporterDeps): Report {
  let send: Report | null = null;
  const queued: Array<Parameters<Report>> = [];
  if (settings.dsn) {
    deps.afterFirstPaint(() => {
      deps.load(settings).then(
        (ready) => {
          send = ready;
          queued.splice(0).forEach((args) => ready(...args));
        },
        (error) => deps.console.error('[waiting-room] error reporting unavailable', error),
      );
    });
  }
  return (message, level) => {
    deps.console.error('[waiting-room]', message);
    if (!settings.dsn) return;
    if (send) send(message, level);
    else queued.push([message, level]);
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
