/**
 * This module is loaded lazily (its own file, fetched after the first paint): only a released
 * visitor needs it. It imports nothing the page bundles, so that it adds no shared code.
 */
import type { Replay } from '@waiting-room/streams';
import { createReplayForm } from './replay-form';

/** What performing a replay needs of the browser. */
export interface PerformReplayDeps {
  readonly location: Pick<Location, 'href' | 'assign' | 'reload'>;
  readonly history: Pick<History, 'replaceState' | 'state'>;
  readonly document: Document;
  readonly csrfToken: string;
}

/** Performs one replay; the type of `performReplay`. */
export type PerformReplay = (replay: Replay, deps: PerformReplayDeps) => void;

const withoutHash = (url: URL) => url.href.slice(0, url.href.length - url.hash.length);

/**
 * Navigates to a GET replay's target. `location.assign` to the same document with only a hash
 * (or nothing) changed would not load the page again, so that case reloads instead.
 */
export function navigateTo(target: string, { location, history }: Pick<PerformReplayDeps, 'location' | 'history'>): void {
  const url = new URL(target, location.href);
  const here = new URL(location.href);
  if (withoutHash(url) != withoutHash(here)) return location.assign(url.href);
  if (url.hash != here.hash) history.replaceState(history.state, '', url.href);
  location.reload();
}

/** Performs one replay: navigation for GET, the hidden POST form for any other verb. */
export const performReplay: PerformReplay = (replay, deps) => {
  if (replay.kind == 'navigate') return navigateTo(replay.target, deps);
  const form = createReplayForm(deps.document, replay, deps.csrfToken);
  deps.document.body.append(form);
  form.submit();
};
