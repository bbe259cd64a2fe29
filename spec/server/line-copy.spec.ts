import type Redis from 'ioredis';
import { LineCopy, type LineSnapshot } from '../../server/store/redis/line-copy';

type Entry = [id: string, fields: string[]];

/**
 * The copy's own connection, played by hand: each read of the log waits for the entries the test
 * delivers. Redis itself is in store-redis.spec.ts; here the order in which the log and the
 * instance's own replies arrive is chosen, which a real Redis does not let a test choose.
 */
class Tail {
  status = 'ready';
  version = 0;
  size = 0;
  private waiting?: (reply: [string, Entry[]][] | null) => void;
  private queued: Entry[][] = [];

  xread(): Promise<[string, Entry[]][] | null> {
    const entries = this.queued.shift();
    if (entries) return Promise.resolve([['log', entries]]);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  hget(): Promise<string> {
    return Promise.resolve(String(this.version));
  }

  zcard(): Promise<number> {
    return Promise.resolve(this.size);
  }

  deliver(...entries: Entry[]): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting([['log', entries]]);
    else this.queued.push(entries);
  }
}

const entry = (version: number, served: number, changes: string): Entry => [`${version}-0`, ['v', String(version), 's', String(served), 'c', changes]];
const settle = async () => {
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
};

describe("an instance's copy of the line", () => {
  let tail: Tail;
  let snapshots: LineSnapshot[];
  let reads: number;
  let copy: LineCopy;

  beforeEach(async () => {
    tail = new Tail();
    snapshots = [[5, 0, '5-0', ['a', '1', 'b', '2', 'c', '3']]];
    reads = 0;
    copy = new LineCopy({
      tail: tail as unknown as Redis,
      keys: { log: 'log', meta: 'meta', waiting: 'waiting' },
      snapshot: () => Promise.resolve(snapshots[Math.min(reads++, snapshots.length - 1)]),
    });
    copy.start();
    await settle();
  });
  afterEach(() => copy.close());

  it('should answer from the line it read, then follow the log: arrivals at the back, places gone, served', async () => {
    expect(copy.position('b')).toEqual({ position: 2, ticket: 2, served: 0 });
    tail.deliver(entry(6, 0, '+4:d'), entry(7, 1, '-a,-c'));
    await settle();
    expect([copy.position('a'), copy.position('b'), copy.position('c'), copy.position('d')]).toEqual([
      undefined,
      { position: 1, ticket: 2, served: 1 },
      undefined,
      { position: 2, ticket: 4, served: 1 },
    ]);
    expect(reads).toBe(1);
  });

  it("should not answer until it holds the instance's own latest change, then answer at once", async () => {
    copy.written(6);
    expect(copy.position('b')).toBeUndefined();
    tail.deliver(entry(6, 1, '-a'));
    await settle();
    expect(copy.position('b')).toEqual({ position: 1, ticket: 2, served: 1 });
  });

  it("should go on answering when the log brings other instances' later changes before the instance's own reply", async () => {
    tail.deliver(entry(6, 1, '-a'), entry(7, 1, '+4:d'));
    await settle();
    // The reply of this instance's call that made version 6 arrives after the log's 7.
    copy.written(6);
    expect(copy.position('d')).toEqual({ position: 3, ticket: 4, served: 1 });
    expect(reads).toBe(1);
  });

  it('should read the line again at a missing version, at a reorder, and when Redis starts again from 1', async () => {
    snapshots.push([9, 0, '9-0', ['b', '2', 'c', '3']]);
    tail.deliver(entry(7, 0, '-a'));
    await settle();
    expect(reads).toBe(2);
    expect(copy.position('a')).toBeUndefined();
    expect(copy.position('c')).toEqual({ position: 2, ticket: 3, served: 0 });

    tail.deliver(entry(10, 0, '!'));
    await settle();
    expect(reads).toBe(3);

    snapshots.push([1, 0, '1-0', ['e', '1']]);
    tail.deliver(entry(1, 0, '+1:e'));
    await settle();
    expect(reads).toBe(4);
    expect(copy.position('b')).toBeUndefined();
    // What this instance knew of the old Redis is gone with it: the copy answers again.
    expect(copy.position('e')).toEqual({ position: 1, ticket: 1, served: 0 });
  });

  it('should not answer while its connection is down', () => {
    tail.status = 'reconnecting';
    expect(copy.position('a')).toBeUndefined();
    tail.status = 'ready';
    expect(copy.position('a')).toEqual({ position: 1, ticket: 1, served: 0 });
  });
});
