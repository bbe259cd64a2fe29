import Pusher from 'pusher-js';
import { Observable } from 'rxjs';
import type { LiveSnapshot, Sample } from '../../server/domain/console/samples';
import type { ConsoleSession } from './api';

export type LiveStatus = 'connecting' | 'live' | 'offline';

/**
 * The samples pushed on the console's private channel, and the connection's state. The channel
 * is authorized by `POST /admin/pusher/auth`, which signs it only for this session (its cookie,
 * and its CSRF token in `X-CSRF-Token`). Unsubscribing disconnects.
 */
export function liveSamples$(snapshot: LiveSnapshot, session: ConsoleSession): Observable<{ sample?: Sample; status: LiveStatus }> {
  return new Observable((subscriber) => {
    const { key, host, port, forceTLS, cluster } = snapshot.realtime;
    const pusher = new Pusher(key, {
      cluster,
      wsHost: host,
      wsPort: port,
      wssPort: port,
      forceTLS,
      enabledTransports: ['ws', 'wss'],
      disableStats: true,
      channelAuthorization: { endpoint: '/admin/pusher/auth', transport: 'ajax', headers: { 'X-CSRF-Token': session.csrfToken } },
    });
    const channel = pusher.subscribe(snapshot.channel);
    subscriber.next({ status: 'connecting' });
    channel.bind('pusher:subscription_succeeded', () => subscriber.next({ status: 'live' }));
    channel.bind(snapshot.event, (sample: Sample) => subscriber.next({ sample, status: 'live' }));
    pusher.connection.bind('state_change', ({ current }: { current: string }) => {
      if (current !== 'connected') subscriber.next({ status: current === 'connecting' ? 'connecting' : 'offline' });
      else if (channel.subscribed) subscriber.next({ status: 'live' });
    });
    return () => pusher.disconnect();
  });
}
