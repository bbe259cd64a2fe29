import { randomUUID } from 'node:crypto';
import type { QueueOpened } from '@waiting-room/streams/contract';
import { opening, shareOf } from '../../streams/rules/opening';
import { newScheduler } from './helpers';

describe('opening', () => {
  it("should take a visitor's share from the FNV-1a hash of the uuid", () => {
    // FNV-1a's published 32-bit vectors: "" → 0x811c9dc5, "a" → 0xe40c292c, "foobar" → 0xbf9cf968.
    expect(shareOf('')).toBe(0x811c9dc5 / 2 ** 32);
    expect(shareOf('a')).toBe(0xe40c292c / 2 ** 32);
    expect(shareOf('foobar')).toBe(0xbf9cf968 / 2 ** 32);
  });

  it('should spread the uuids a server issues evenly, so that a pre-queue asks at an even pace', () => {
    const tenths = new Array<number>(10).fill(0);
    for (let i = 0; i < 20_000; i++) tenths[Math.floor(shareOf(randomUUID()) * 10)]++;
    // 2,000 a tenth on average; the binomial spread is about 42.
    for (const count of tenths) expect(Math.abs(count - 2000)).toBeLessThan(250);
  });

  it('should ask once, spread × share ms after each opening, a later one restarting the wait', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      // uuid "a": share 0.89081…, so 8,908 ms of a 10 s spread (never reached), 890 ms of a 1 s one.
      const opened$ = hot<QueueOpened>('-o 999ms p', { o: { spread: 10_000 }, p: { spread: 1000 } });
      const expected = '                 - 1000ms 890ms x';
      expectObservable(opening(opened$, 'a', scheduler)).toBe(expected, { x: 0 });
    });
  });

  it('should ask at once for a spread that is not a finite, non-negative number', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const opened$ = hot<QueueOpened>('-a-b-c', { a: { spread: -5 }, b: { spread: Number.NaN }, c: { spread: '9' as unknown as number } });
      expectObservable(opening(opened$, 'a', scheduler)).toBe('-a-b-c', { a: 0, b: 0, c: 0 });
    });
  });
});
