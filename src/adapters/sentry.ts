import { captureMessage, init } from '@sentry/browser';
import type { ErrorReportingSettings } from '@waiting-room/streams/contract';
import type { Report } from './error-reporter';

/** The page reports errors only; release-health sessions would add one request per visitor. */
const withoutSessions = <T extends { name: string }>(integrations: T[]): T[] => integrations.filter((integration) => integration.name != 'BrowserSession');

/**
 * Starts @sentry/browser. This module is loaded lazily, after the first paint, so that the SDK
 * stays off the critical path; returns the function that sends one report, as a message at its
 * level (an error unless told otherwise).
 */
export function startSentry({ dsn, sampleRate, release }: ErrorReportingSettings): Report {
  init({ dsn: dsn ?? undefined, sampleRate, release, integrations: withoutSessions });
  return (message, level = 'error') => {
    captureMessage(message, level);
  };
}
