import { filter, type Observable, type Subscription } from 'rxjs';
import type { QueueStatus } from '@waiting-room/streams';
import type { Report } from '../adapters/error-reporter';

/** What a lost place is reported as (beyond the spec), at the warning level. */
export const PLACE_LOST_REPORT = 'Waiting room place lost: queue_info answered 404 unknown_uuid';

/**
 * Reports each failure of the status stream with the spec's exact message (section 8), as an
 * error. A lost place (beyond the spec) is reported once, as a warning: the page copes with it,
 * and after a restart of a server that keeps its line in memory it is expected, but many of them
 * outside a restart say places expire while visitors wait.
 */
export function reportFailures(status$: Observable<QueueStatus>, report: Report): Subscription {
  return status$
    .pipe(filter((status) => status.kind == 'failed' || status.kind == 'lost'))
    .subscribe((status) => (status.kind == 'failed' ? report(status.message) : report(PLACE_LOST_REPORT, 'warning')));
}
