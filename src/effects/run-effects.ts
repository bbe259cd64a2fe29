import { merge, type Observable, type Subscription } from 'rxjs';
import type { QueueStatus } from '../../streams/types';
import type { Report } from '../adapters/error-reporter';
import { leave } from './leave';
import { replay, type ReplayDeps } from './replay';
import { reportFailures } from './report-failures';

export interface EffectsDeps extends ReplayDeps {
  readonly location: ReplayDeps['location'] & Pick<Location, 'assign'>;
  readonly history: ReplayDeps['history'] & Pick<History, 'back'>;
  readonly report: Report;
}

/** Subscribes once to the status stream and performs what it asks for: report, leave, replay. */
export function runEffects(status$: Observable<QueueStatus>, deps: EffectsDeps): Subscription {
  return merge(reportFailures(status$, deps.report), leave(status$, deps.location, deps.history), replay(status$, deps)).subscribe();
}
