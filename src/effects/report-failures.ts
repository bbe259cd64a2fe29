import { filter, tap, type Observable } from 'rxjs';
import type { QueueStatus } from '../../streams/types';
import type { Report } from '../adapters/error-reporter';

/** Reports each failure of the status stream with the spec's exact message (section 8). */
export function reportFailures(status$: Observable<QueueStatus>, report: Report): Observable<unknown> {
  return status$.pipe(
    filter((status) => status.kind == 'failed'),
    tap((status) => report(status.message)),
  );
}
