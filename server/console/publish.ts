import Pusher from 'pusher';
import type { PusherConfig } from '../config';
import type { Fanout } from '../realtime/fanout';
import { ADMIN_CHANNEL, SAMPLE_EVENT, type Sample } from './samples';

/**
 * How a sample reaches the consoles: with the embedded realtime server, straight into the fanout
 * (every instance's sockets, no HTTP round trip to ourselves); with an outside Pusher-protocol
 * server, through its HTTP events API.
 */
export function consolePublisher(config: PusherConfig, fanout: Fanout, outside: Pusher.Options): (sample: Sample) => Promise<void> {
  if (config.embedded) {
    return (sample) => fanout.publish({ channel: ADMIN_CHANNEL, event: SAMPLE_EVENT, data: JSON.stringify(sample) });
  }
  const pusher = new Pusher(outside);
  return async (sample) => {
    await pusher.trigger(ADMIN_CHANNEL, SAMPLE_EVENT, sample);
  };
}
