import { captureMessage, init } from '@sentry/browser';
import type { ErrorReportingSettings } from '../config/page-config';

/**
 * Starts @sentry/browser. This module is loaded lazily, after the first paint, so that the SDK
 * stays off the critical path; returns the function that sends one report.
 */
export function startSentry({ dsn, sampleRate, release }: ErrorReportingSettings): (message: string) => void {
  init({ dsn: dsn ?? undefined, sampleRate, release });
  return (message) => {
    captureMessage(message, 'error');
  };
}
