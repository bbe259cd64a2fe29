/** One event for the subscribers of one channel, whichever instance they are connected to. */
export interface ChannelMessage {
  readonly channel: string;
  readonly event: string;
  /** The event data as it goes on the wire (a string, usually JSON). */
  readonly data: string;
  /** The socket that caused the event, left out of the delivery (the protocol's `socket_id`). */
  readonly exceptSocketId?: string;
  /** The room whose line it concerns, when known: on a Redis Cluster it travels on that room's shard. */
  readonly room?: string;
}

/**
 * Carries channel events from the instance that received them (through the HTTP events API)
 * to every instance's connected clients. The local one delivers within the process; a Redis
 * one (pub/sub) lets several instances share one realtime audience.
 */
export interface Fanout {
  /** Hands `message` to every instance's local delivery. */
  publish(message: ChannelMessage): Promise<void>;
  /** Sets this instance's local delivery; called once by the realtime server. */
  onMessage(deliver: (message: ChannelMessage) => void): void;
  close(): Promise<void>;
}

/** A fanout for a single instance: publishing delivers at once. */
export class LocalFanout implements Fanout {
  private deliver: (message: ChannelMessage) => void = () => undefined;

  async publish(message: ChannelMessage): Promise<void> {
    this.deliver(message);
  }

  onMessage(deliver: (message: ChannelMessage) => void): void {
    this.deliver = deliver;
  }

  async close(): Promise<void> {
    this.deliver = () => undefined;
  }
}
