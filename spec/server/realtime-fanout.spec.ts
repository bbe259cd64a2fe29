import WebSocket from 'ws';
import { Connection } from '../../server/realtime/connection';
import type { RealtimeServer } from '../../server/realtime/server';
import type { Started } from '../../server/process/start';
import { connectPusher, eventsApi, record, RawSocket, rawListener, startWithRealtime, subscribe } from './support/realtime';
import { waitFor } from './support/server';

const SECRET = 'fanout-secret-known-to-the-test';
/** Sockets on the line-wide channel, as every waiting page is. */
const CROWD = 2000;

// Opening the crowd takes a few seconds on a small machine.
jest.setTimeout(60_000);

/** The frame text the protocol puts on the wire for a channel event, encoded here on its own. */
const wire = (event: string, channel: string, data: string) => JSON.stringify({ event, channel, data });

/** Every text frame `socket` receives from now on, as read off the wire (not parsed). */
function texts(socket: RawSocket): string[] {
  const received: string[] = [];
  socket.ws.on('message', (data) => received.push(data.toString()));
  return received;
}

describe('realtime fan-out to a crowd on one channel', () => {
  let server: Started;
  let realtime: RealtimeServer;
  const sockets: RawSocket[] = [];
  const crowd: Array<{ socket: RawSocket; received: string[] }> = [];

  beforeAll(async () => {
    // The whole crowd connects from 127.0.0.1.
    ({ server, realtime } = await startWithRealtime({
      PUSHER_SECRET: SECRET,
      REALTIME_MAX_BUFFERED_BYTES: '65536',
      REALTIME_MAX_CONNECTIONS_PER_ADDRESS: String(10 * CROWD),
    }));
    while (crowd.length < CROWD) {
      const batch = await Promise.all(Array.from({ length: 100 }, () => rawListener(server, 'App.Queue', sockets)));
      for (const socket of batch) crowd.push({ socket, received: texts(socket) });
    }
  });
  afterEach(() => {
    for (const { received } of crowd) received.length = 0;
    jest.restoreAllMocks();
  });
  afterAll(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    await server.close();
  });

  const allReceived = (count: number) => crowd.every(({ received }) => received.length >= count);
  const moved = (served: number) => ({ channel: 'App.Queue', event: 'QueueMoved', data: JSON.stringify({ served }) });
  /** An event on the crowd's channel that every socket must get, each one (unlike the line's moves, of which only the latest matters). */
  const notice = (n: number) => ({ channel: 'App.Queue', event: 'Notice', data: JSON.stringify({ n }) });

  it('should bring every event to every socket, in order, byte for byte as the protocol encodes it', async () => {
    const api = eventsApi(server, SECRET);
    for (const n of [1, 2, 3]) await api.trigger('App.Queue', 'Notice', { n });
    await waitFor(() => allReceived(3), 'three events at every socket', 20_000);

    const expected = [1, 2, 3].map((n) => wire('Notice', 'App.Queue', JSON.stringify({ n })));
    for (const { received } of crowd) expect(received).toEqual(expected);
  });

  it('should keep the order of events published back to back at every socket', async () => {
    for (let n = 1; n <= 5; n++) realtime.deliver(notice(n));
    await waitFor(() => allReceived(5), 'five events at every socket', 20_000);

    const expected = [1, 2, 3, 4, 5].map((n) => wire('Notice', 'App.Queue', JSON.stringify({ n })));
    for (const { received } of crowd) expect(received).toEqual(expected);
  });

  it("should not let a visitor's release overtake the move published before it, though the move is still on its way", async () => {
    // The last socket of the crowd: the move reaches it last.
    const { socket, received } = crowd[CROWD - 1];
    socket.send({ event: 'pusher:subscribe', data: { channel: 'App.Client.last' } });
    await socket.next('pusher_internal:subscription_succeeded', 5000, 1);
    received.length = 0;

    realtime.deliver(moved(6));
    realtime.deliver({ channel: 'App.Client.last', event: 'RequestUnqueud', data: '{"uuid":"last"}' });
    await waitFor(() => allReceived(1) && received.length === 2, 'the move everywhere and the release', 20_000);

    expect(received).toEqual([wire('QueueMoved', 'App.Queue', '{"served":6}'), wire('RequestUnqueud', 'App.Client.last', '{"uuid":"last"}')]);
  });

  it('should frame an event once for the whole crowd, not once a socket', async () => {
    const frame = jest.spyOn((WebSocket as unknown as { Sender: { frame: (...args: unknown[]) => unknown } }).Sender, 'frame');
    realtime.deliver(moved(7));
    await waitFor(() => allReceived(1), 'the event at every socket', 20_000);

    // Unmasked frames are the server's; the clients in this process mask theirs.
    const serverFrames = frame.mock.calls.filter(([, options]) => !(options as { mask?: boolean }).mask);
    expect(serverFrames).toHaveLength(1);
  });

  it('should let the event loop turn while a fan-out is under way', async () => {
    const original = Connection.prototype.sendFrame;
    let written = 0;
    const spy = jest.spyOn(Connection.prototype, 'sendFrame').mockImplementation(function (this: Connection, ...args) {
      written += 1;
      return Reflect.apply(original, this, args);
    });

    let writtenAtImmediate = -1;
    let writtenAtTimeout = -1;
    setImmediate(() => (writtenAtImmediate = written));
    setTimeout(() => (writtenAtTimeout = written), 0);
    realtime.deliver(moved(8));
    await waitFor(() => allReceived(1), 'the event at every socket', 20_000);

    expect(spy).toHaveBeenCalledTimes(CROWD);
    expect(writtenAtImmediate).toBeGreaterThanOrEqual(0);
    expect(writtenAtImmediate).toBeLessThan(CROWD);
    expect(writtenAtTimeout).toBeLessThan(CROWD);
  });

  it('should answer an HTTP request while a large fan-out is under way', async () => {
    const original = Connection.prototype.sendFrame;
    let written = 0;
    jest.spyOn(Connection.prototype, 'sendFrame').mockImplementation(function (this: Connection, ...args) {
      written += 1;
      return Reflect.apply(original, this, args);
    });
    const events = 10;

    let writtenAtAnswer = -1;
    const answered = fetch(`${server.url}/`).then(async (response) => {
      writtenAtAnswer = written;
      await response.arrayBuffer();
      return response.status;
    });
    for (let n = 1; n <= events; n++) realtime.deliver(notice(n));
    await waitFor(() => allReceived(events), 'every event at every socket', 30_000);

    expect(await answered).toBeLessThan(500);
    expect(written).toBe(events * CROWD);
    expect(writtenAtAnswer).toBeLessThan(events * CROWD);
  });

  it('should still decode for a real pusher-js client among the crowd', async () => {
    const pusher = await connectPusher(server);
    try {
      const { channel, error } = await subscribe(pusher, 'App.Queue');
      expect(error).toBeUndefined();
      const heard = record(channel, 'Notice');
      realtime.deliver(notice(41));
      realtime.deliver(notice(42));
      await waitFor(() => heard.length === 2 && allReceived(2), 'both events at pusher-js and the crowd', 20_000);
      expect(heard).toEqual([{ n: 41 }, { n: 42 }]);
    } finally {
      pusher.disconnect();
    }
  });

  it('should close a socket that does not read at the bound, while the crowd gets every event', async () => {
    const stalled = await rawListener(server, 'App.Slow', sockets);
    const readers = await Promise.all(Array.from({ length: 20 }, () => rawListener(server, 'App.Slow', sockets)));
    const heard = readers.map(texts);
    stalled.ws.pause();
    const closes = jest.spyOn(WebSocket.prototype, 'close');
    const before = realtime.connectionCount;
    const data = 'x'.repeat(9 * 1024);

    let published = 0;
    while (realtime.connectionCount === before && published < 5000) {
      realtime.deliver({ channel: 'App.Slow', event: 'large', data: JSON.stringify({ n: published, data }) });
      // The crowd hears of something meanwhile.
      if (published % 50 === 0) realtime.deliver(notice(published));
      published += 1;
      if (published % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await waitFor(() => heard.every((received) => received.length === published), 'every event at the reading sockets', 20_000);
    const moves = Math.ceil(published / 50);
    await waitFor(() => allReceived(moves), 'every notice at the crowd', 20_000);

    // Closed with 4100, then dropped once the close timeout passed: it never reads the close frame.
    expect(published).toBeLessThan(5000);
    expect(realtime.connectionCount).toBe(before - 1);
    expect(closes.mock.calls).toEqual([[4100, 'Over capacity: too much output waiting for this client.']]);
    for (const received of heard) {
      expect(received.map((text) => JSON.parse(JSON.parse(text).data).n)).toEqual([...Array(published).keys()]);
    }
    for (const { socket, received } of crowd) {
      expect(received).toHaveLength(moves);
      expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    }
  });

  describe("the line's moves, of which a page keeps the largest", () => {
    const servedOf = (text: string) => (JSON.parse(JSON.parse(text).data) as { served: number }).served;

    it('should bring a move to every socket when it is published alone', async () => {
      realtime.deliver(moved(100));
      await waitFor(() => allReceived(1), 'the move at every socket', 20_000);
      realtime.deliver(moved(101));
      await waitFor(() => allReceived(2), 'the next move at every socket', 20_000);

      for (const { received } of crowd) expect(received.map(servedOf)).toEqual([100, 101]);
    });

    it('should bring the latest of moves published back to back to every socket, never an older after a newer, without writing the superseded ones to all', async () => {
      const original = Connection.prototype.sendFrame;
      let written = 0;
      jest.spyOn(Connection.prototype, 'sendFrame').mockImplementation(function (this: Connection, ...args) {
        written += 1;
        return Reflect.apply(original, this, args);
      });

      for (let served = 201; served <= 210; served++) realtime.deliver(moved(served));
      await waitFor(
        () => crowd.every(({ received }) => received.length > 0 && servedOf(received.at(-1) as string) === 210),
        'the latest move at every socket',
        20_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));

      for (const { received } of crowd) {
        const served = received.map(servedOf);
        expect(served).toEqual([...served].sort((a, b) => a - b));
        expect(new Set(served).size).toBe(served.length);
        expect(served.at(-1)).toBe(210);
      }
      // Ten moves to the whole crowd would be ten writes a socket; the superseded ones stopped early.
      expect(written).toBeLessThan(3 * CROWD);
    });

    it('should not drop a release, nor a move behind it, for a newer move', async () => {
      const { socket, received } = crowd[CROWD - 2];
      const subscribed = socket.messages.filter((message) => message.event === 'pusher_internal:subscription_succeeded').length;
      socket.send({ event: 'pusher:subscribe', data: { channel: 'App.Client.late' } });
      await socket.next('pusher_internal:subscription_succeeded', 5000, subscribed);
      received.length = 0;

      realtime.deliver(moved(300));
      realtime.deliver({ channel: 'App.Client.late', event: 'RequestUnqueud', data: '{"uuid":"late"}' });
      realtime.deliver(moved(301));
      await waitFor(() => received.some((text) => text.includes('"served\\":301')), 'the last move at the last socket', 20_000);

      const events = received.map((text) => JSON.parse(text) as { event: string; data: string });
      expect(events.map(({ event }) => event).filter((event) => event === 'RequestUnqueud')).toHaveLength(1);
      expect(events.at(-1)).toEqual({ event: 'QueueMoved', channel: 'App.Queue', data: '{"served":301}' });
    });
  });
});
