import { EventEmitter } from 'node:events';
import type Redis from 'ioredis';
import { LineCopy, type LogHead } from '../../server/store/redis/line-copy';

type Entry = [id: string, fields: string[]];

/**
 * The copy's own connection, played by hand: the line is read in pages from `places`, and each
 * blocking read of the log waits for the entries the test delivers (a read that does not block
 * takes those already delivered). Redis itself is in store-redis.spec.ts; here the order in which
 * the pages, the log and the instance's own replies arrive is chosen, which a real Redis does not
 * let a test choose.
 */
class Tail extends EventEmitter {
  status = 'ready';
  version = 0;
  /** The line as Redis holds it: uuid and ticket, in ticket order. */
  places: [string, number][] = [];
  pages = 0;
  /** Run after each page is read, before the log is drained. */
  afterPage?: (page: number) => void;
  private waiting?: (reply: [string, Entry[]][] | null) => void;
  private queued: Entry[] = [];

  /** When each blocking read of the log was sent. */
  readonly blockingReads: number[] = [];

  xread(...args: (string | number)[]): Promise<[string, Entry[]][] | null> {
    if (args.includes('BLOCK')) this.blockingReads.push(performance.now());
    const entries = this.queued.splice(0);
    if (entries.length > 0) return Promise.resolve([['log', entries]]);
    if (!args.includes('BLOCK')) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  zrangebyscore(_key: string, min: number | string, max: number): Promise<string[]> {
    const above = (ticket: number) => (typeof min === 'string' && min.startsWith('(') ? ticket > Number(min.slice(1)) : ticket >= Number(min));
    const page = this.places.filter(([, ticket]) => above(ticket) && ticket <= max);
    this.afterPage?.(++this.pages);
    return Promise.resolve(page.flatMap(([uuid, ticket]) => [uuid, String(ticket)]));
  }

  hget(): Promise<string> {
    return Promise.resolve(String(this.version));
  }

  /** The log and the line's version, read together (a transaction of XREAD and HGET). */
  multi() {
    const calls: Promise<unknown>[] = [];
    const transaction = {
      xread: (...args: (string | number)[]) => {
        calls.push(this.xread(...args));
        return transaction;
      },
      hget: () => {
        calls.push(this.hget());
        return transaction;
      },
      exec: async () => (await Promise.all(calls)).map((reply) => [null, reply]),
    };
    return transaction;
  }

  zcard(): Promise<number> {
    return Promise.resolve(this.places.length);
  }

  /** Logs `entries`: the line's version is the last one's (unless Redis's own is later). */
  deliver(...entries: Entry[]): void {
    for (const [, fields] of entries) this.version = Math.max(this.version, Number(fields[1]));
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting([['log', entries]]);
    else this.queued.push(...entries);
  }
}

const entry = (version: number, served: number, changes: string): Entry => [`${version}-0`, ['v', String(version), 's', String(served), 'c', changes]];
/** An entry of a release: its changes, and the places it released (field r). */
const releasing = (version: number, served: number, changes: string, released: string): Entry => [
  `${version}-0`,
  ['v', String(version), 's', String(served), 'c', changes, 'r', released],
];
const settle = async () => {
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
};

/** The line each test starts from, and the same once its head has left. */
const ABC: [string, number][] = [
  ['a', 1],
  ['b', 2],
  ['c', 3],
];
const BC = ABC.slice(1);

describe("an instance's copy of the line", () => {
  let tail: Tail;
  let heads: LogHead[];
  let reads: number;
  let copy: LineCopy;

  /**
   * The line Redis holds from now on, and the log's head a read of it starts from: its tickets
   * (the head's, and the last), and where its pages of two places end (`pageSize` below).
   */
  const redisHolds = ([version, served, lastId]: [number, number, string], places: [string, number][], lastGiven?: number) => {
    const last = lastGiven ?? Math.max(0, ...places.map(([, ticket]) => ticket));
    const ends = places.filter((_, rank) => rank % 2 === 1 && rank <= places.length - 2).map(([, ticket]) => ticket);
    heads.push([version, served, lastId, places[0]?.[1] ?? last + 1, last, [], ends]);
    tail.places = places;
    tail.version = version;
  };

  /** A copy of the line Redis holds, reading the log no sooner than `readSpacingMs` apart, started and settled. */
  const startCopy = async (readSpacingMs: number) => {
    copy = new LineCopy({
      tail: tail as unknown as Redis,
      keys: { log: 'log', meta: 'meta', waiting: 'waiting' },
      head: () => Promise.resolve(heads[Math.min(reads++, heads.length - 1)]),
      pageSize: 2,
      readSpacingMs,
    });
    copy.start();
    await settle();
  };

  beforeEach(async () => {
    tail = new Tail();
    heads = [];
    redisHolds([5, 0, '5-0'], ABC);
    reads = 0;
    // Each read at once: the order of reads and replies is the test's (the spacing has its own test).
    await startCopy(0);
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

  it('should skip an arrival logged after its page was read: arrivals are logged a moment after they hold their place', async () => {
    tail.deliver(entry(6, 1, '+3:c,-a,+4:d'));
    await settle();
    expect([copy.position('b'), copy.position('c'), copy.position('d')]).toEqual([
      { position: 1, ticket: 2, served: 1 },
      { position: 2, ticket: 3, served: 1 },
      { position: 3, ticket: 4, served: 1 },
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

  it('should read the line again at a missing version, at a change it does not know, and when Redis starts again from 1', async () => {
    redisHolds([9, 0, '9-0'], BC);
    tail.deliver(entry(7, 0, '-a'));
    await settle();
    expect(reads).toBe(2);
    expect(copy.position('a')).toBeUndefined();
    expect(copy.position('c')).toEqual({ position: 2, ticket: 3, served: 0 });

    redisHolds([10, 0, '10-0'], tail.places);
    tail.deliver(entry(10, 0, '!'));
    await settle();
    expect(reads).toBe(3);

    redisHolds([1, 0, '1-0'], [['e', 1]]);
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

  it('should read the line in pages, and apply once each change logged meanwhile, before or after its page', async () => {
    redisHolds(
      [5, 0, '5-0'],
      [
        ['a', 1],
        ['b', 2],
        ['c', 3],
        ['d', 4],
        ['e', 5],
      ],
    );
    tail.pages = 0;
    // After the first page (a, b): a leaves (already read), c leaves (not read yet), f arrives
    // and is read by the last page, g arrives after it.
    tail.afterPage = (page) => {
      if (page === 1) {
        tail.places = tail.places.filter(([uuid]) => uuid !== 'a' && uuid !== 'c').concat([['f', 6]]);
        tail.deliver(entry(6, 1, '-a'), entry(7, 1, '-c'), entry(8, 1, '+6:f'));
      }
      if (page === 3) tail.deliver(entry(9, 1, '+7:g'));
    };
    tail.deliver(entry(6, 0, '!'));
    await settle();

    expect(tail.pages).toBe(3);
    expect(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((uuid) => copy.position(uuid)?.position)).toEqual([undefined, 1, undefined, 2, 3, 4, 5]);
    expect(copy.position('g')).toEqual({ position: 5, ticket: 7, served: 1 });
    // It follows the log from there.
    tail.deliver(entry(10, 2, '-b'));
    await settle();
    expect(copy.position('d')).toEqual({ position: 1, ticket: 4, served: 2 });
  });

  it('should follow entrants keyed to their draw slots, tickets before the last, without reading the line again', async () => {
    tail.deliver(entry(6, 0, '+21:d,+22:e'));
    await settle();
    expect([copy.position('d')?.position, copy.position('e')?.position]).toEqual([4, 5]);
    // e keyed before d: both move to slots between c (3) and the arrivals (21 on).
    tail.deliver(entry(7, 0, '>10:e,>12:d'), entry(8, 0, '+23:f'));
    await settle();
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((uuid) => copy.position(uuid)?.position)).toEqual([1, 2, 3, 5, 4, 6]);
    expect(copy.position('d')).toEqual({ position: 5, ticket: 12, served: 0 });
    // Moved up a slot by a key that comes before it, then gone before any poll.
    tail.deliver(entry(9, 0, '>13:d,>12:g,-e'));
    await settle();
    expect(['d', 'g', 'f'].map((uuid) => copy.position(uuid)?.position)).toEqual([5, 4, 6]);
    expect(reads).toBe(1);
  });

  /** The copy reads `before` again, in pages of two; once the first page is read, Redis holds `after` and logs `change`. */
  const readWhileKeyed = async (before: [string, number][], after: [string, number][], change: string) => {
    redisHolds([5, 0, '5-0'], before);
    tail.pages = 0;
    tail.afterPage = (page) => {
      if (page !== 1) return;
      tail.places = after;
      tail.deliver(entry(6, 0, change));
    };
    tail.deliver(entry(6, 0, '!'));
    await settle();
    expect(tail.pages).toBe(2);
  };

  it('should hold, once its pages are read, an entrant keyed to its slot between two of them', async () => {
    // After the first page (a, b), d moves to its slot before c, where the second page finds it.
    await readWhileKeyed(
      [
        ['a', 1],
        ['b', 2],
        ['c', 21],
        ['d', 22],
      ],
      [
        ['a', 1],
        ['b', 2],
        ['d', 10],
        ['c', 21],
      ],
      '>10:d',
    );
    expect(['a', 'b', 'c', 'd'].map((uuid) => copy.position(uuid)?.position)).toEqual([1, 2, 4, 3]);
    expect(copy.position('d')).toEqual({ position: 3, ticket: 10, served: 0 });
  });

  it('should hold once, at its later page, a place moved up a slot between the reads of two pages', async () => {
    // x read by the first page at 2, then moved up to 3 (a key before it took its slot), where the second page reads it.
    await readWhileKeyed(
      [
        ['a', 1],
        ['x', 2],
        ['b', 4],
        ['c', 5],
      ],
      [
        ['a', 1],
        ['x', 3],
        ['b', 4],
        ['c', 5],
      ],
      '>3:x',
    );
    expect(['a', 'x', 'b', 'c'].map((uuid) => copy.position(uuid)?.position)).toEqual([1, 2, 3, 4]);
    expect(copy.position('x')).toEqual({ position: 2, ticket: 3, served: 0 });
  });

  it('should read the line again when the log was trimmed past it during the pages, and then hold what Redis holds', async () => {
    redisHolds([5, 0, '5-0'], ABC);
    tail.pages = 0;
    tail.afterPage = (page) => {
      if (page !== 1) return;
      // Entries 6 and 7 were trimmed before they were read: the copy cannot know a left.
      redisHolds(
        [8, 1, '8-0'],
        [
          ['b', 2],
          ['c', 3],
          ['d', 4],
        ],
      );
      tail.deliver(entry(8, 1, '+4:d'));
    };
    const before = reads;
    tail.deliver(entry(6, 0, '!'));
    // It tries again after a pause (RETRY_MS).
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(reads).toBe(before + 2);
    expect(copy.position('a')).toBeUndefined();
    expect(copy.position('d')).toEqual({ position: 3, ticket: 4, served: 1 });
  });

  it('should read the line again when a change it does not know was logged during the pages, and hold the new order', async () => {
    redisHolds([5, 0, '5-0'], ABC);
    tail.pages = 0;
    tail.afterPage = (page) => {
      if (page !== 1) return;
      // A later version's change swaps a and c after a's page was read.
      tail.places = [
        ['c', 1],
        ['b', 2],
        ['a', 3],
      ];
      tail.deliver(entry(6, 0, '!'));
      redisHolds([6, 0, '6-0'], tail.places);
    };
    const before = reads;
    tail.deliver(entry(6, 0, '!'));
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(reads).toBe(before + 2);
    expect(['a', 'b', 'c'].map((uuid) => copy.position(uuid)?.position)).toEqual([3, 2, 1]);
  });

  it('should not answer once a connection broke (Redis may be a replica promoted without the last writes) until it has read the line again', async () => {
    expect(copy.position('a')).toEqual({ position: 1, ticket: 1, served: 0 });
    redisHolds([4, 0, '4-0'], [['b', 2]]);
    tail.emit('close');
    expect(copy.position('a')).toBeUndefined();
    // The blocked read of the log comes back on the new connection, and the copy reads the line again.
    tail.deliver();
    await settle();
    expect(copy.position('a')).toBeUndefined();
    expect(copy.position('b')).toEqual({ position: 1, ticket: 2, served: 0 });

    copy.disconnected();
    expect(copy.position('b')).toBeUndefined();
  });

  it('should move nobody back for a release a failover undid, show it released, and hand it to be released again', async () => {
    tail.deliver(releasing(6, 1, '-a', 'a'));
    await settle();
    expect(copy.position('c')).toEqual({ position: 2, ticket: 3, served: 1 });
    // The promoted replica never had version 6.
    redisHolds([5, 0, '5-0'], ABC);
    tail.emit('close');
    expect([copy.bound('a'), copy.bound('b'), copy.bound('c')]).toEqual([0, 1, 2]);
    tail.deliver();
    await settle();
    expect([copy.position('a'), copy.position('b'), copy.position('c')]).toEqual([
      undefined,
      { position: 1, ticket: 2, served: 0 },
      { position: 2, ticket: 3, served: 0 },
    ]);
    expect([copy.bound('a'), copy.bound('c'), copy.sawLeave('a'), copy.sawLeave('b')]).toEqual([0, undefined, true, false]);
    expect(copy.returnedReleases()).toEqual(['a']);

    // Released again: it moves nobody, and is handed on no more.
    tail.deliver(releasing(6, 1, '-a', 'a'));
    await settle();
    expect(copy.position('c')).toEqual({ position: 2, ticket: 3, served: 1 });
    expect([copy.bound('a'), copy.returnedReleases()]).toEqual([undefined, []]);
    expect(reads).toBe(2);
  });

  it('should note the places gone while it read the line again, and hold one apart that a failover brings back', async () => {
    redisHolds([9, 0, '9-0'], BC);
    tail.deliver(entry(7, 0, '-a'));
    await settle();
    expect(reads).toBe(2);
    expect(copy.sawLeave('a')).toBe(true);

    redisHolds([5, 0, '5-0'], ABC);
    tail.emit('close');
    tail.deliver();
    await settle();
    expect([copy.position('a'), copy.position('c')]).toEqual([undefined, { position: 2, ticket: 3, served: 0 }]);
    // Not known to be a release: held apart, not handed on.
    expect(copy.returnedReleases()).toEqual([]);
  });

  it('should read the log again no sooner than its spacing, but at once after a change of its own instance', async () => {
    copy.close();
    tail = new Tail();
    redisHolds([5, 0, '5-0'], ABC);
    const spacingMs = 200;
    await startCopy(spacingMs);
    expect(tail.blockingReads).toHaveLength(1);

    tail.deliver(entry(6, 0, '+4:d'));
    await settle();
    expect(copy.position('d')).toEqual({ position: 4, ticket: 4, served: 0 });
    expect(tail.blockingReads).toHaveLength(1);
    tail.deliver(entry(7, 1, '-a'));
    await new Promise((resolve) => setTimeout(resolve, spacingMs + 50));
    expect(tail.blockingReads).toHaveLength(2);
    // A timer may fire a millisecond early: what counts is that the copy did not read again at once.
    expect(tail.blockingReads[1] - tail.blockingReads[0]).toBeGreaterThanOrEqual(spacingMs * 0.9);
    expect(copy.position('b')).toEqual({ position: 1, ticket: 2, served: 1 });

    // This instance changed the line (version 8): the copy reads at once, and answers once it holds it.
    tail.deliver(entry(8, 1, '+5:e'));
    await settle();
    expect(tail.blockingReads).toHaveLength(2);
    copy.written(9);
    tail.deliver(entry(9, 1, '+6:f'));
    await settle();
    expect(tail.blockingReads).toHaveLength(3);
    expect(copy.position('f')).toEqual({ position: 5, ticket: 6, served: 1 });
  });
});
