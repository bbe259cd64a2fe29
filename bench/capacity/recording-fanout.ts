import type { ChannelMessage, Fanout } from '../../server/realtime/fanout';
import { preciseNow } from '../stats';

/**
 * The server's own fanout, unchanged, noting when each channel's event was handed to this
 * instance's sockets. It splits release-to-delivery into the server's part (decision → events
 * API → fanout) and the rest (socket write → the visitor's process reading the frame).
 */
export class RecordingFanout implements Fanout {
  /** channel → when its last event was handed to the local sockets (ms since the epoch). */
  readonly handedAt = new Map<string, number>();

  constructor(private readonly inner: Fanout) {}

  publish(message: ChannelMessage): Promise<void> {
    return this.inner.publish(message);
  }

  onMessage(deliver: (message: ChannelMessage) => void): void {
    this.inner.onMessage((message) => {
      this.handedAt.set(message.channel, preciseNow());
      deliver(message);
    });
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
