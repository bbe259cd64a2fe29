import { SEEN_FLUSH_MS, SeenMarks } from '../../server/store/redis/seen-marks';

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
    const marks = new SeenMarks(write, SEEN_FLUSH_MS, 3);
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
    const marks = new SeenMarks(write, SEEN_FLUSH_MS, 100, 2);
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
});
