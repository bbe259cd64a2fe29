import { Subscription, type Observable } from 'rxjs';
import type { QueueStatus } from '@waiting-room/streams';
import { leave } from './leave';
import { replay, type ReplayDeps } from './replay';
import { reportFailures } from './report-failures';

export interface EffectsDeps extends ReplayDeps {
  readonly location: ReplayDeps['location'] & Pick<Location, 'assign'>;
  readonly history: ReplayDeps['history'] & Pick<History, 'back'>;
}

/** Performs what the status stream asks for: report, leave, replay. Unsubscribe to stop them all. */
export function runEffects(status$: Observable<QueueStatus>, deps: EffectsDeps): Subscription {
  const effects = new Subscription();
  effects.add(reportFailures(status$, deps.report));
  effects.add(leave(status$, deps.location, deps.history));
  effects.add(replay(status$, deps));
  return effects;
}
