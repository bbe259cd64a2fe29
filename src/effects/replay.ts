import { filter, take, type Observable, type Subscription } from 'rxjs';
import type { QueueStatus, Replay } from '../../streams/types';
import { createReplayForm } from './replay-form';

export interface ReplayDeps {
  readonly location: Pick<Location, 'href' | 'assign' | 'reload'>;
  readonly history: Pick<History, 'replaceState' | 'state'>;
  readonly document: Document;
  readonly csrfToken: string;
}

const withoutHash = (url: URL) => url.href.slice(0, url.href.length - url.hash.length);

/**
 * Navigates to a GET replay's target. `location.assign` to the same document with only a hash
 * (or nothing) changed would not load the page again, so that case reloads instead.
 */
export function navigateTo(target: string, { location, history }: Pick<ReplayDeps, 'location' | 'history'>): void {
  const url = new URL(target, location.href);
  const here = new URL(location.href);
  if (withoutHash(url) != withoutHash(here)) return location.assign(url.href);
  if (url.hash != here.hash) history.replaceState(history.state, '', url.href);
  location.reload();
}

/** Performs one replay: navigation for GET, the hidden POST form for any other verb. */
export function performReplay(replay: Replay, deps: ReplayDeps): void {
  if (replay.kind == 'navigate') return navigateTo(replay.target, deps);
  const form = createReplayForm(deps.document, replay, deps.csrfToken);
  deps.document.body.append(form);
  form.submit();
}

/** Replays the held request on the first 'released' status, and never again (the done flag). */
export function replay(status$: Observable<QueueStatus>, deps: ReplayDeps): Subscription {
  return status$
    .pipe(
      filter((status) => status.kind == 'released'),
      take(1),
    )
    .subscribe((status) => performReplay(status.replay, deps));
}
