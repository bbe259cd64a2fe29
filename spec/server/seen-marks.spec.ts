import { SEEN_FLUSH_MS, SEEN_SPACING_MAX_MS, SeenMarks, seenSpacing } from '../../server/store/redis/seen-marks';

describe('marks of seen written late and together', () => {
  let writes: string[][];
  const write = (pairs: string[]) => {
    writes.push(pairs);
    return Promise.resolve();
  };

  beforeEach(() => {
    writes = [];
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('should write nothing at once, then the latest mark of each place in one write, within the flush time', () => {
    const marks = new SeenMarks(write);
    marks.mark('a', 10);
    marks.mark('b', 11);
    marks.mark('a', 15);
    marks.mark('a', 12);
    expect(writes).toEqual([]);
    jest.advanceTimersByTime(SEEN_FLUSH_MS - 1);
    expect(writes).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(writes).toEqual([['15', 'a', '11', 'b']]);
    jest.advanceTimersByTime(SEEN_FLUSH_MS * 4);
    expect(writes).toHaveLength(1);
  });

  it('should write at once when the most one write carries wait, and when asked', () => {
    const marks = new SeenMarks(write, { flushSize: 3 });
    marks.mark('a', 1);
    marks.mark('b', 2);
    expect(writes).toEqual([]);
    marks.mark('c', 3);
    expect(writes).toEqual([['1', 'a', '2', 'b', '3', 'c']]);
    marks.mark('d', 4);
    marks.flush();
    expect(writes).toEqual([
      ['1', 'a', '2', 'b', '3', 'c'],
      ['4', 'd'],
    ]);
    expect(marks.size).toBe(0);
    marks.flush();
    jest.advanceTimersByTime(SEEN_FLUSH_MS);
    expect(writes).toHaveLength(2);
  });

  it('should write due marks a call a turn, each of at most the call size, and every one at once when asked', () => {
    const marks = new SeenMarks(write, { flushSize: 100, callSize: 2 });
    for (const [index, uuid] of ['a', 'b', 'c', 'd', 'e'].entries()) marks.mark(uuid, index);

    jest.advanceTimersByTime(SEEN_FLUSH_MS);
    expect(writes).toEqual([['0', 'a', '1', 'b']]);
    jest.advanceTimersByTime(1);
    expect(writes).toEqual([
      ['0', 'a', '1', 'b'],
      ['2', 'c', '3', 'd'],
    ]);
    marks.mark('f', 5);
    // Before another call of the store: everything, in order, at once.
    marks.flush();
    expect(writes).toEqual([
      ['0', 'a', '1', 'b'],
      ['2', 'c', '3', 'd'],
      ['4', 'e', '5', 'f'],
    ]);
    expect(marks.size).toBe(0);
    jest.runAllTimers();
    expect(writes).toHaveLength(3);
  });

  it('should let a failed write go: the next polls mark their places again', async () => {
    let fail = true;
    const marks = new SeenMarks((pairs) => {
      writes.push(pairs);
      return fail ? Promise.reject(new Error('Redis is away')) : Promise.resolve();
    });
    marks.mark('a', 1);
    marks.flush();
    await Promise.resolve();
    fail = false;
    marks.mark('a', 2);
    marks.flush();
    expect(writes).toEqual([
      ['1', 'a'],
      ['2', 'a'],
    ]);
  });

  describe('spaced by the room’s away time', () => {
    const awayMs = 60_000;
    const spacing = seenSpacing(awayMs);
    const written = () => writes.flatMap((pairs) => pairs.filter((_, i) => i % 2 === 0).map((at, i) => `${pairs[2 * i + 1]}@${at}`));

    it('should be a twentieth of the away time, and at most 5 minutes', () => {
      expect(spacing).toBe(3000);
      expect(seenSpacing(1000)).toBe(50);
      expect(seenSpacing(1_800_000)).toBe(90_000);
      expect(seenSpacing(24 * 3_600_000)).toBe(SEEN_SPACING_MAX_MS);
      expect(SEEN_SPACING_MAX_MS).toBe(300_000);
    });

    it('should mark a place polled every second once within the spacing, and again within twice it', () => {
      const marks = new SeenMarks(write, { awayMs });
      for (let now = 0; now <= 4 * spacing; now += 1000) {
        marks.mark('a', now);
        marks.flush();
      }
      const times = written().map((mark) => Number(mark.split('@')[1]));
      expect(times[0]).toBe(0);
      // Never closer than the spacing, never further apart than twice it (the poll every second included).
      for (let i = 1; i < times.length; i++) {
        expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(spacing);
        expect(times[i] - times[i - 1]).toBeLessThanOrEqual(2 * spacing);
      }
      expect(times.length).toBeGreaterThanOrEqual(2);
      expect(times.length).toBeLessThan(13 / 2);
    });

    it('should mark each place apart, and every poll without an away time', () => {
      const spaced = new SeenMarks(write, { awayMs });
      spaced.mark('a', 0);
      spaced.mark('b', 100);
      spaced.mark('a', 200);
      spaced.flush();
      expect(written()).toEqual(['a@0', 'b@100']);
      writes = [];
      const every = new SeenMarks(write);
      every.mark('a', 0);
      every.flush();
      every.mark('a', 200);
      every.flush();
      expect(written()).toEqual(['a@0', 'a@200']);
    });

    it('should forget the places of a failed write, so that their next poll marks them', async () => {
      let fail = true;
      const marks = new SeenMarks(
        (pairs) => {
          writes.push(pairs);
          return fail ? Promise.reject(new Error('Redis is away')) : Promise.resolve();
        },
        { awayMs },
      );
      marks.mark('a', 0);
      marks.flush();
      await Promise.resolve();
      await Promise.resolve();
      fail = false;
      marks.mark('a', 1000);
      marks.flush();
      marks.mark('a', 2000);
      marks.flush();
      expect(written()).toEqual(['a@0', 'a@1000']);
    });
  });
});
