import type Pusher from 'pusher';
import type { PusherConfig } from '../process/config';
import type { Fanout } from './fanout';
import { ADMIN_CHANNEL, SAMPLE_EVENT, type Sample } from '../domain/console/samples';

/**
 * How a sample reaches the consoles: with the embedded realtime server, straight into the fanout
 * (every instance's sockets, no HTTP round trip to ourselves); with an outside Pusher-protocol
 * server, through its HTTP events API.
 */
export function consolePublisher(config: PusherConfig, fanout: Fanout, outside: Pusher.Options): (sample: Sample) => Promise<void> {
  if (config.embedded) {
    return (sample) => fanout.publish({ channel: ADMIN_CHANNEL, event: SAMPLE_EVENT, data: JSON.stringify(sample) });
  }
  // Loaded only when an outside server is used: the embedded one needs no HTTP client for its events.
  const PusherClient = require('pusher') as typeof Pusher;
  const pusher = new PusherClient(outside);
  return async (sample) => {
    await pusher.trigger(ADMIN_CHANNEL, SAMPLE_EVENT, sample);
  };
}
