import type { ChannelMessage, Fanout } from '../../server/realtime/fanout';
import { CHANNELS } from '@waiting-room/streams/contract';
import { preciseNow } from '../stats';

/**
 * The server's own fanout, unchanged, noting when each channel's event was handed to this
 * instance's sockets. It splits release-to-delivery into the server's part (decision → events
 * API → fanout) and the rest (socket write → the visitor's process reading the frame).
 */
export class RecordingFanout implements Fanout {
  /** channel → when its last event was handed to the local sockets (ms since the epoch). */
  readonly handedAt = new Map<string, number>();
  /** `served` of each `QueueMoved` → when it was handed to the local sockets (ms since the epoch). */
  readonly movedHandedAt = new Map<number, number>();

  constructor(private readonly inner: Fanout) {}

  publish(message: ChannelMessage): Promise<void> {
    return this.inner.publish(message);
  }

  onMessage(deliver: (message: ChannelMessage) => void): void {
    this.inner.onMessage((message) => {
      const at = preciseNow();
      if (message.channel === CHANNELS.queue && message.event === CHANNELS.movedEvent) {
        this.movedHandedAt.set(servedOf(message.data), at);
      } else this.handedAt.set(message.channel, at);
      deliver(message);
    });
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The `served` of a `QueueMoved`'s data, NaN when it has none. */
export function servedOf(data: unknown): number {
  try {
    const served = (JSON.parse(String(data)) as { served?: unknown }).served;
    return typeof served === 'number' ? served : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
