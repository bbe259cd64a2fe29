// The README's complete example (streams/README.md, "Wiring a realtime client"), type-checked here
// by `npm run typecheck`; spec/package/readme.spec.ts keeps the two the same.
import Pusher, { type Channel } from 'pusher-js';
import { defer, fromEventPattern, map, ReplaySubject, startWith, switchMap, take, throwError, type Observable } from 'rxjs';
import { createQueue$, placeLost, type ConnectionState, type QueueSources, type Replay } from '@waiting-room/streams';
import {
  CHANNELS,
  CONFIG_ELEMENT_ID,
  parsePageConfig,
  queueInfoOf,
  REALTIME,
  UNKNOWN_UUID,
  type LineMoved,
  type QueueInfo,
} from '@waiting-room/streams/contract';

// 1. The config the server wrote into the page, checked.
const result = parsePageConfig(JSON.parse(document.getElementById(CONFIG_ELEMENT_ID)?.textContent || 'null'), location.origin);
if (!result.ok) throw new Error(`The waiting-room config is malformed:\n${result.problems.join('\n')}`);
const { queue, userId, csrfToken, realtime, routes, timings } = result.config;

// 2. The realtime client. Any client that delivers the same events fits: only `on()` knows it.
const pusher = new Pusher(realtime.key, {
  cluster: realtime.cluster,
  ...(realtime.host ? { wsHost: realtime.host, httpHost: realtime.host, httpPort: realtime.port, httpsPort: realtime.port } : {}),
  wsPort: realtime.port,
  wssPort: realtime.port,
  forceTLS: realtime.forceTLS,
  enabledTransports: [...REALTIME.enabledTransports],
  channelAuthorization: { endpoint: '/pusher/auth', transport: 'ajax', headers: { 'X-CSRF-TOKEN': csrfToken } },
});
type Emitter = { bind(event: string, callback: (data: any) => void): unknown; unbind(event: string, callback: (data: any) => void): unknown };
const on = <T>(emitter: Emitter, event: string): Observable<T> =>
  fromEventPattern<T>(
    (handler) => emitter.bind(event, handler),
    (handler) => emitter.unbind(event, handler),
  );

// 3. The sources. The visitor's channel is joined by `subscribe()`, which the core calls on each
// 'connected'; its events are listened to from then on.
const channelName = userId ? CHANNELS.user(userId, queue.uuid) : CHANNELS.client(queue.uuid);
const channel$ = new ReplaySubject<Channel>(1);
const onChannel = <T>(event: string) =>
  channel$.pipe(
    take(1),
    switchMap((channel) => on<T>(channel, event)),
  );
const sources: QueueSources = {
  state$: defer(() =>
    on<{ current: ConnectionState }>(pusher.connection, 'state_change').pipe(
      map((change) => change.current),
      startWith(pusher.connection.state as ConnectionState),
    ),
  ),
  error$: on(pusher.connection, 'error'),
  subscribed$: onChannel('pusher:subscription_succeeded'),
  release$: onChannel(CHANNELS.releaseEvent),
  moved$: channel$.pipe(
    take(1),
    switchMap(() => on<LineMoved>(pusher.subscribe(CHANNELS.queue), CHANNELS.movedEvent)),
  ),
  subscribe: () =>
    defer(() => {
      const channel = pusher.subscribe(channelName);
      channel$.next(channel);
      // A refused private channel errors here, which ends this source only (see onSourceError).
      return on(channel, 'pusher:subscription_error').pipe(switchMap((error) => throwError(() => new Error(`${channelName}: ${JSON.stringify(error)}`))));
    }),
  queueInfo: () =>
    defer(async (): Promise<QueueInfo> => {
      const url = routes.queue_info.replace('{uuid}', encodeURIComponent(queue.uuid));
      const response = await fetch(url, { cache: 'no-store', credentials: 'same-origin', headers: { Accept: 'application/json' } });
      const body: unknown = await response.json().catch(() => null);
      const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
      if (response.status == 404 && code == UNKNOWN_UUID) throw placeLost('queue_info: the server does not know this place');
      const info = response.ok ? queueInfoOf(body) : null;
      if (!info) throw new Error(`queue_info answered ${response.status}`);
      return info;
    }),
  queueRequest: () =>
    defer(() =>
      fetch(routes.queue_request, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ _token: csrfToken, user_id: userId, uuid: queue.uuid }),
      }),
    ),
};

// 4. The status stream, and what each status asks of the page.
const show = (text: string) => (document.body.textContent = text);
function replay(held: Replay): void {
  if (held.kind == 'navigate') return location.assign(held.target);
  const form = Object.assign(document.createElement('form'), { method: 'POST', action: held.action, hidden: true });
  const fields = { ...(held.method == 'POST' ? {} : { _method: held.method }), uuid: held.uuid, _token: csrfToken };
  for (const [name, value] of Object.entries(fields)) form.append(Object.assign(document.createElement('input'), { type: 'hidden', name, value }));
  document.body.append(form);
  form.submit();
}

createQueue$(sources, {
  anonymous: !userId,
  request: { uuid: queue.uuid, uri: queue.uri, method: queue.method, hash: location.hash },
  timings,
  onSourceError: (source, error) => console.error(`waiting room: ${source} failed`, error),
}).subscribe({
  next(status) {
    switch (status.kind) {
      case 'loading':
        return show('Finding your place in line…');
      case 'waiting':
        return show(`You are number ${status.position} in line, about ${status.estimated} min.${status.failedPolls ? ' Retrying…' : ''}`);
      case 'released':
        return replay(status.replay);
      case 'failed':
        return console.error(status.message); // report it: the page leaves 2 s later
      case 'leaving':
        return status.step == 'back' ? history.back() : location.assign('/');
      case 'lost':
        return show(status.rejoin ? 'Your place in line was lost: taking you back in line…' : 'Your place in line was lost.');
      case 'rejoining':
        return location.assign(status.target);
    }
  },
  complete: () => pusher.disconnect(),
});
