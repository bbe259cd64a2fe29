import { catchError, EMPTY, type MonoTypeOperatorFunction } from 'rxjs';
import type { SourceErrorHandler, SourceName } from '../types.js';

/**
 * Treats an error in a source as that source ending (rule: errors in the hot sources must not
 * kill the status stream silently). The error is handed to `onSourceError` (the page reports
 * it), then the source completes; the rest of the status stream carries on with what it still
 * has: polls keep the position fresh, the watchdogs keep guarding the visitor.
 * Emits what the source emits, in order; never errors.
 */
export function endOnError<T>(source: SourceName, onSourceError?: SourceErrorHandler): MonoTypeOperatorFunction<T> {
  return catchError((error: unknown) => {
    onSourceError?.(source, error);
    return EMPTY;
  });
}
