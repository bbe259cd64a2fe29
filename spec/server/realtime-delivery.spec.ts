import { SlicedDelivery, type Delivered, type FrameTarget } from '../../server/realtime/delivery';

/** A clock that moves only when a socket is written: each write takes `msPerWrite`. */
function fakeClock(msPerWrite: number) {
  const clock = { ms: 0, tick: () => (clock.ms += msPerWrite) };
  return clock;
}

/** A subscriber that notes each frame it is given, in one log shared by all. */
function targets(count: number, log: Array<[string, string]>, clock?: { tick(): void }, prefix = 's'): FrameTarget[] {
  return Array.from({ length: count }, (_, index) => {
    const id = `${prefix}${index}`;
    return {
      id,
      sendFrame(frame: Buffer) {
        log.push([id, frame.toString()]);
        clock?.tick();
      },
    };
  });
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

async function untilWritten(log: unknown[], count: number): Promise<number> {
  let turns = 0;
  while (log.length < count) {
    if (++turns > 10_000) throw new Error(`only ${log.length} of ${count} written`);
    await turn();
  }
  return turns;
}

describe('sliced delivery of channel events', () => {
  it('should write a small event to every subscriber before deliver returns when nothing is under way', () => {
    const log: Array<[string, string]> = [];
    const delivery = new SlicedDelivery();

    delivery.deliver(Buffer.from('a'), targets(5, log));

    expect(log.map(([id]) => id)).toEqual(['s0', 's1', 's2', 's3', 's4']);
    expect(delivery.backlog).toBe(0);
  });

  it('should stop at the first look at the clock past its slice and go on in later turns of the event loop', async () => {
    const log: Array<[string, string]> = [];
    const clock = fakeClock(1);
    const delivery = new SlicedDelivery(4, () => clock.ms);

    delivery.deliver(Buffer.from('a'), targets(100, log, clock));
    // The clock is read every 32 sockets: the first look after 4 ms of writes ends the slice.
    expect(log).toHaveLength(32);
    let otherWork = 0;
    setImmediate(() => (otherWork = log.length));

    const turns = await untilWritten(log, 100);

    expect(turns).toBeGreaterThanOrEqual(3);
    // Work queued behind the first slice ran before the rest of the sockets were written.
    expect(otherWork).toBeGreaterThanOrEqual(32);
    expect(otherWork).toBeLessThan(100);
    expect(new Set(log.map(([id]) => id)).size).toBe(100);
  });

  it('should keep publishing order: a later event, on any channel, waits until every earlier one is written', async () => {
    const log: Array<[string, string]> = [];
    const clock = fakeClock(1);
    const delivery = new SlicedDelivery(4, () => clock.ms);
    const crowd = targets(100, log, clock);
    const last = crowd[99];

    delivery.deliver(Buffer.from('moved-1'), crowd);
    delivery.deliver(Buffer.from('released'), [last]);
    delivery.deliver(Buffer.from('moved-2'), crowd);
    await untilWritten(log, 201);

    const frames = log.map(([, frame]) => frame);
    expect(frames.lastIndexOf('moved-1')).toBeLessThan(frames.indexOf('released'));
    expect(frames.indexOf('released')).toBeLessThan(frames.indexOf('moved-2'));
    expect(log.filter(([id]) => id === 's99').map(([, frame]) => frame)).toEqual(['moved-1', 'released', 'moved-2']);
  });

  it('should leave out the socket that caused the event', () => {
    const log: Array<[string, string]> = [];
    const delivery = new SlicedDelivery();

    delivery.deliver(Buffer.from('a'), targets(3, log), { exceptSocketId: 's1' });

    expect(log.map(([id]) => id)).toEqual(['s0', 's2']);
  });

  it('should say what each delivery took: sockets written, when it was published, first and last written, and its own writing time', async () => {
    const log: Array<[string, string]> = [];
    const clock = fakeClock(1);
    const delivery = new SlicedDelivery(4, () => clock.ms);
    const told: Delivered[] = [];

    delivery.deliver(Buffer.from('big'), targets(64, log, clock), { done: (delivered) => told.push(delivered) });
    delivery.deliver(Buffer.from('small'), targets(2, log, clock, 'x'), { exceptSocketId: 'x0', done: (delivered) => told.push(delivered) });
    await untilWritten(log, 65);

    expect(told).toEqual([
      { sockets: 64, publishedAt: 0, firstWriteAt: 0, lastWriteAt: 64, writingMs: 64, superseded: false },
      // Published while the big one was under way: its first write waited for the big one's last.
      { sockets: 1, publishedAt: 32, firstWriteAt: 64, lastWriteAt: 65, writingMs: 1, superseded: false },
    ]);
  });

  it('should not write a move a newer one superseded while it was still queued', async () => {
    const log: Array<[string, string]> = [];
    const clock = fakeClock(1);
    const delivery = new SlicedDelivery(4, () => clock.ms);
    const crowd = targets(100, log, clock);
    const told: Array<[string, Delivered]> = [];
    const done = (name: string) => (delivered: Delivered) => told.push([name, delivered]);

    delivery.deliver(Buffer.from('release'), crowd.slice(0, 64), { done: done('release') });
    delivery.deliver(Buffer.from('moved-1'), crowd, { latestOf: 'moved', done: done('moved-1') });
    delivery.deliver(Buffer.from('moved-2'), crowd, { latestOf: 'moved', done: done('moved-2') });
    await untilWritten(log, 164);
    await turn();

    expect(log.filter(([, frame]) => frame === 'moved-1')).toEqual([]);
    expect(log.filter(([, frame]) => frame === 'moved-2')).toHaveLength(100);
    expect(told.map(([name, { sockets, superseded }]) => [name, sockets, superseded])).toEqual([
      ['moved-1', 0, true],
      ['release', 64, false],
      ['moved-2', 100, false],
    ]);
  });

  it('should stop a move under way once a newer one is out: the sockets it had not reached get only the newer one, the others both, in order', async () => {
    const log: Array<[string, string]> = [];
    const clock = fakeClock(1);
    const delivery = new SlicedDelivery(4, () => clock.ms);
    const crowd = targets(100, log, clock);
    const told: Array<[string, Delivered]> = [];

    delivery.deliver(Buffer.from('moved-1'), crowd, { latestOf: 'moved', done: (delivered) => told.push(['moved-1', delivered]) });
    // The first slice is spent after 32 sockets.
    expect(log).toHaveLength(32);
    delivery.deliver(Buffer.from('other'), crowd.slice(0, 1));
    delivery.deliver(Buffer.from('moved-2'), crowd, { latestOf: 'moved', done: (delivered) => told.push(['moved-2', delivered]) });
    await untilWritten(log, 133);
    await turn();

    expect(log.filter(([, frame]) => frame === 'moved-1').map(([id]) => id)).toEqual(crowd.slice(0, 32).map((target) => target.id));
    expect(log.filter(([, frame]) => frame === 'moved-2')).toHaveLength(100);
    expect(log.filter(([id]) => id === 's0').map(([, frame]) => frame)).toEqual(['moved-1', 'other', 'moved-2']);
    expect(log.filter(([id]) => id === 's50').map(([, frame]) => frame)).toEqual(['moved-2']);
    expect(told.map(([name, { sockets, superseded }]) => [name, sockets, superseded])).toEqual([
      ['moved-1', 32, true],
      ['moved-2', 100, false],
    ]);
  });

  it('should let events of other kinds through, whatever their key', async () => {
    const log: Array<[string, string]> = [];
    const delivery = new SlicedDelivery();

    delivery.deliver(Buffer.from('a'), targets(2, log), { latestOf: 'one' });
    delivery.deliver(Buffer.from('b'), targets(2, log), { latestOf: 'two' });
    delivery.deliver(Buffer.from('c'), targets(2, log));

    expect(log.map(([, frame]) => frame)).toEqual(['a', 'a', 'b', 'b', 'c', 'c']);
  });
});
