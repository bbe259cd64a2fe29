// An outside project's use of the installed package's types, checked by a strict TypeScript on
// Node's own module resolution (spec/package): it must compile, and the two marked lines must not.
import { createQueue$, isPlaceLost, placeLost, type QueueSources, type QueueStatus } from '@waiting-room/streams';
import {
  CHANNELS,
  parsePageConfig,
  queueInfoOf,
  ROUTES,
  verifyDraw,
  type DrawRecord,
  type DrawVerdict,
  type LineMoved,
  type PageConfig,
  type PageConfigJson,
  type QueueInfo,
} from '@waiting-room/streams/contract';
import { NEVER, of, Subject, type Observable } from 'rxjs';
// @ts-expect-error: only the package's entry points are public, not its files
import type * as internals from '@waiting-room/streams/dist/rules/poll.js';

const answer: QueueInfo = queueInfoOf({ position: 3, estimated: 2, ticket: 10, served: 7 }) ?? { position: 0, estimated: 0 };
const moved$ = new Subject<LineMoved>();
const sources: QueueSources = {
  state$: of('connected'),
  error$: NEVER,
  subscribed$: NEVER,
  release$: NEVER,
  subscribe: () => NEVER,
  queueInfo: () => of(answer),
  queueRequest: () => NEVER,
  moved$,
};
export const status$: Observable<QueueStatus> = createQueue$(sources, {
  anonymous: true,
  request: { uuid: 'u-1', uri: '/checkout', method: 'GET', hash: '' },
  timings: { poll: 30_000 },
});

export const written: PageConfigJson = {
  queue: { uuid: 'u-1', uri: '/checkout', method: 'GET', position: 3 },
  user: { id: 0 },
  csrfToken: 't',
  realtime: { key: 'k', host: 'ws.example.com', port: 443, forceTLS: true, cluster: 'eu' },
  routes: ROUTES,
  errorReporting: { dsn: 'https://k@sentry.example/1', sampleRate: 0.5, release: '1.0.0' },
};
const result = parsePageConfig(written, 'https://shop.example');
export const config: PageConfig | null = result.ok ? result.config : null;
export const problems: readonly string[] = result.ok ? result.warnings : result.problems;
export const channel: string = CHANNELS.user(7, written.queue.uuid);
export const lost: boolean = isPlaceLost(placeLost('gone'));
const draw: DrawRecord = { event: 'e', commitment: '0'.repeat(64), entrants: 0, seed: '1'.repeat(64), order: [] };
export const verdict: Promise<DrawVerdict> = verifyDraw(draw, { uuid: 'u-1' });
// @ts-expect-error: a status the core never emits
export const wrong: QueueStatus = { kind: 'done' };
