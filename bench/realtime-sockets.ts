/**
 * A few Pusher-protocol sockets that many waiting visitors' channels share (the rooms under test
 * allow 1,000 channels a socket): for the benchmarks that measure the line, not the realtime
 * server. Each `RequestUnqueud` is handed on with its channel.
 */
import WebSocket from 'ws';
import { CHANNELS } from '@waiting-room/streams/contract';

/** Channels a socket carries at most. */
export const CHANNELS_PER_SOCKET = 900;

interface Shared {
  readonly ws: WebSocket;
  channels: number;
}

export class RealtimeSockets {
  private readonly sockets: Shared[] = [];
  private readonly socketOf = new Map<string, Shared>();

  private constructor(
    private readonly url: string,
    private readonly onRelease: (channel: string) => void,
    private readonly onProblem: (what: string) => void,
  ) {}

  /** Opens enough sockets for `channels` at once on the server at `serverUrl`. */
  static async open(serverUrl: string, realtimeKey: string, channels: number, onRelease: (channel: string) => void, onProblem: (what: string) => void) {
    const url = `ws://${new URL(serverUrl).host}/app/${realtimeKey}?protocol=7&client=js&version=8.6.0&flash=false`;
    const pool = new RealtimeSockets(url, onRelease, onProblem);
    for (let i = 0; i < Math.ceil(channels / CHANNELS_PER_SOCKET); i++) pool.sockets.push(await pool.connect());
    return pool;
  }

  private connect(): Promise<Shared> {
    const ws = new WebSocket(this.url, { perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      ws.on('message', (raw) => {
        const message = JSON.parse(raw.toString()) as { event: string; channel?: string };
        if (message.event === 'pusher:connection_established') resolve({ ws, channels: 0 });
        else if (message.event === 'pusher:ping') ws.send('{"event":"pusher:pong","data":{}}');
        else if (message.event === CHANNELS.releaseEvent && message.channel) this.onRelease(message.channel);
        else if (message.event === 'pusher:error') this.onProblem(`realtime error ${raw.toString().slice(0, 120)}`);
      });
      ws.once('error', reject);
      ws.on('close', (code) => this.onProblem(`a realtime socket closed (${code})`));
    });
  }

  /** Subscribes `channel` on a socket with room for it; false when none has. */
  subscribe(channel: string): boolean {
    const socket = this.sockets.find((one) => one.channels < CHANNELS_PER_SOCKET);
    if (!socket) return false;
    socket.channels++;
    this.socketOf.set(channel, socket);
    socket.ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { auth: '', channel } }));
    return true;
  }

  unsubscribe(channel: string): void {
    const socket = this.socketOf.get(channel);
    if (!socket) return;
    this.socketOf.delete(channel);
    socket.channels--;
    socket.ws.send(JSON.stringify({ event: 'pusher:unsubscribe', data: { channel } }));
  }

  close(): void {
    for (const { ws } of this.sockets) {
      ws.removeAllListeners('close');
      ws.terminate();
    }
  }
}
