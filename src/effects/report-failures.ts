import { filter, type Observable, type Subscription } from 'rxjs';
import type { QueueStatus } from '../../streams/types';
import type { Report } from '../adapters/error-reporter';

/** Reports each failure of the status stream with the spec's exact message (section 8). */
export function reportFailures(status$: Observable<QueueStatus>, report: Report): Subscription {
  return status$.pipe(filter((status) => status.kind == 'failed')).subscribe((status) => report(status.message));
}
