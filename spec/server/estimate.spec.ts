import { estimateMinutes } from '../../server/estimate';

const MINUTE = 60_000;
const now = 100 * MINUTE;
/** `count` releases evenly spread over the `minutes` before now, newest first. */
const releases = (count: number, minutes: number) =>
  Array.from({ length: count }, (_, i) => now - ((i + 1) * minutes * MINUTE) / count);

describe('estimateMinutes', () => {
  it('should be 0 once released', () => {
    expect(estimateMinutes(0, releases(10, 5), now, 6)).toBe(0);
  });

  it('should fall back to the configured rate before any release is seen', () => {
    expect(estimateMinutes(12, [], now, 6)).toBe(2);
    expect(estimateMinutes(13, [], now, 6)).toBe(3);
  });

  it('should assume one a minute when releases are manual only and none was seen', () => {
    expect(estimateMinutes(4, [], now, 0)).toBe(4);
  });

  it('should follow the observed rate once enough releases are seen', () => {
    // 20 a minute observed, 20 seen: the configured 6 no longer counts.
    expect(estimateMinutes(40, releases(20, 1), now, 6)).toBe(2);
    expect(estimateMinutes(40, releases(20, 10), now, 6)).toBe(20);
  });

  it('should blend the observed and configured rates while few releases are seen', () => {
    // 5 seen over a minute: half of 5 a minute, half of 1 a minute: 3 a minute.
    expect(estimateMinutes(6, releases(5, 1), now, 1)).toBe(2);
  });

  it('should slow down when releases stop', () => {
    const stalled = releases(10, 1).map((time) => time - 8 * MINUTE);
    expect(estimateMinutes(10, releases(10, 1), now, 6)).toBe(1);
    expect(estimateMinutes(10, stalled, now, 6)).toBe(9);
  });

  it('should ignore releases older than ten minutes', () => {
    const old = releases(10, 1).map((time) => time - 20 * MINUTE);
    expect(estimateMinutes(12, old, now, 6)).toBe(2);
  });

  it('should not take a burst for a rate: the span counts as a minute at least', () => {
    expect(estimateMinutes(40, releases(10, 0.1), now, 6)).toBe(4);
  });

  it('should never answer 0 while waiting', () => {
    expect(estimateMinutes(1, releases(50, 0.1), now, 1000)).toBe(1);
  });
});
