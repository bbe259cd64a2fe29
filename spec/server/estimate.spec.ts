import { estimateMinutes, estimateRate } from '../../server/domain/estimate';

const MINUTE = 60_000;
const SECOND = 1000;
const now = 100 * MINUTE;
/** `count` releases evenly spread over the `minutes` before now, newest first. */
const releases = (count: number, minutes: number) => Array.from({ length: count }, (_, i) => now - ((i + 1) * minutes * MINUTE) / count);
/** `count` releases `gap` ms apart, the newest at `newest`, newest first. */
const every = (gap: number, count: number, newest: number) => Array.from({ length: count }, (_, i) => newest - i * gap);
/** Releases on the given gaps (ms, newest first, cycled) back from `newest`, `count` of them. */
const onGaps = (gaps: readonly number[], count: number, newest: number) => {
  const times = [newest];
  for (let i = 1; i < count; i++) times.push(times[i - 1] - gaps[(i - 1) % gaps.length]);
  return times;
};

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

  it('should follow a rate that halved within two minutes', () => {
    // 6 a minute for eight minutes, then 3 a minute: the ten minutes together would say 5.
    const halved = [...every(20 * SECOND, 6, now - 5 * SECOND), ...every(10 * SECOND, 44, now - 125 * SECOND)];
    expect(estimateMinutes(30, halved, now, 6)).toBe(10);
    const sinceOneMinute = [...every(20 * SECOND, 3, now - 5 * SECOND), ...every(10 * SECOND, 47, now - 65 * SECOND)];
    expect(estimateMinutes(30, sinceOneMinute, now, 6)).toBe(10);
  });

  it('should follow a rate that doubled within two minutes', () => {
    const doubled = [...every(10 * SECOND, 12, now - 5 * SECOND), ...every(20 * SECOND, 38, now - 125 * SECOND)];
    expect(estimateMinutes(30, doubled, now, 3)).toBe(5);
  });

  it('should not take a quick run shorter than a minute for a new rate', () => {
    // 5 released a second apart just now, in a line released 6 a minute: not 60 a minute.
    const quick = [...every(SECOND, 5, now - SECOND), ...every(10 * SECOND, 45, now - 9 * SECOND)];
    expect(estimateMinutes(30, quick, now, 6)).toBe(5);
  });

  it('should take irregular releases over the whole window, not a few gaps for a change', () => {
    // Gaps of 2, 18 and 10 s in turn: 6 a minute on average, whichever stretch is looked at.
    const irregular = onGaps([2 * SECOND, 18 * SECOND, 10 * SECOND], 50, now - 4 * SECOND);
    expect(estimateMinutes(60, irregular, now, 6)).toBe(10);
  });

  it('should slow down when releases stop', () => {
    const stalled = releases(10, 1).map((time) => time - 8 * MINUTE);
    expect(estimateMinutes(10, releases(10, 1), now, 6)).toBe(1);
    expect(estimateMinutes(10, stalled, now, 6)).toBe(9);
    // A steady 6 a minute, then nothing for three minutes.
    expect(estimateMinutes(30, every(10 * SECOND, 50, now - 5 * SECOND), now, 6)).toBe(5);
    expect(estimateMinutes(30, every(10 * SECOND, 50, now - 3 * MINUTE), now, 6)).toBe(8);
  });

  it('should ignore releases older than ten minutes', () => {
    const old = releases(10, 1).map((time) => time - 20 * MINUTE);
    expect(estimateMinutes(12, old, now, 6)).toBe(2);
  });

  it('should not take a single burst for a rate: it counts over a minute at least', () => {
    const burst = Array.from({ length: 10 }, () => now - 6 * SECOND);
    expect(estimateMinutes(40, burst, now, 6)).toBe(4);
  });

  it('should not take a burst in a steady line for a new rate', () => {
    // 10 released at once 30 s ago in a line released 6 a minute: taken for a change, the last
    // minute would say 15 a minute (2 minutes).
    const withBurst = [...every(10 * SECOND, 40, now - 5 * SECOND), ...Array.from({ length: 10 }, () => now - 30 * SECOND)];
    expect(
      estimateMinutes(
        30,
        withBurst.sort((a, b) => b - a),
        now,
        6,
      ),
    ).toBe(4);
  });

  it('should read a rate whose releases come in batches faster than the kept times cover', () => {
    // 1,200 a minute: batches of 20 a second, the oldest cut short to the fifty times a store keeps.
    const batches = [0, 1, 2].flatMap((step) => Array.from({ length: step === 2 ? 10 : 20 }, () => now - 200 - step * SECOND));
    expect(estimateMinutes(10_000, batches, now, 1200)).toBe(9);
  });

  it('should read the rate in force when every kept time is of the last step, faster than the times cover', () => {
    // 10,000 a minute: 167 a second, of which the store keeps fifty, all of the last step.
    const lastStep = Array.from({ length: 50 }, () => now - 400);
    expect(estimateMinutes(500_000, lastStep, now, 10_000)).toBe(50);
    // A million in line at 6,000 a minute: 167 minutes, not the 20,000 fifty a minute would say.
    expect(estimateMinutes(1_000_000, lastStep, now, 6000)).toBe(167);
    // Stalled for five minutes since: much slower.
    expect(estimateMinutes(500_000, lastStep, now + 5 * 60 * SECOND, 10_000)).toBeGreaterThan(1000);
  });

  it('should not depend on the order of the release times', () => {
    const halved = [...every(20 * SECOND, 6, now - 5 * SECOND), ...every(10 * SECOND, 44, now - 125 * SECOND)];
    expect(estimateMinutes(30, [...halved].reverse(), now, 6)).toBe(estimateMinutes(30, halved, now, 6));
  });

  it('should not count releases after now', () => {
    expect(estimateMinutes(12, every(SECOND, 50, now + 60 * SECOND), now, 6)).toBe(2);
  });

  it('should never answer 0 while waiting', () => {
    expect(estimateMinutes(1, releases(50, 0.1), now, 1000)).toBe(1);
  });

  describe('in a room its sessions pace', () => {
    // 500 admitted at once for 5 minutes: 100 a minute at most, though the loop may release 2,000.
    const sessions = { activeLimit: 500, sessionMs: 5 * MINUTE };
    /** The fifty times a store keeps of a burst of 500 (2,000 a minute: 33 a second), its last step at `newest`. */
    const burst = (newest: number) => [0, 1].flatMap((step) => Array.from({ length: step === 0 ? 33 : 17 }, () => newest - step * SECOND));

    it('should release as the sessions end, not at the rate of a burst', () => {
      // Without the limits, the burst reads as near the rate in force: about 30 minutes for 60,000.
      expect(estimateMinutes(60_000, burst(now - 200), now, 2000)).toBeLessThan(40);
      expect(estimateMinutes(60_000, burst(now - 200), now, 2000, sessions)).toBe(600);
      expect(estimateRate(burst(now - 200), now, 2000, sessions)).toBe(100);
    });

    it('should not take the quiet between bursts for a stall', () => {
      // Four minutes after the burst, nothing released since: the next sessions end within a minute.
      expect(estimateMinutes(60_000, burst(now - 4 * MINUTE), now, 2000)).toBeGreaterThan(3000);
      expect(estimateMinutes(60_000, burst(now - 4 * MINUTE), now, 2000, sessions)).toBe(600);
    });

    it('should keep the same answer from poll to poll through a cycle of bursts', () => {
      // Bursts of 500 every 5 minutes; a visitor 3,000 places back polls every 5 s for 20 minutes.
      let previous: number | undefined;
      for (let at = 0; at <= 20 * MINUTE; at += 5 * SECOND) {
        const lastBurst = Math.floor(at / (5 * MINUTE)) * 5 * MINUTE;
        const position = 3000 - (lastBurst / (5 * MINUTE)) * 500;
        const estimate = estimateMinutes(position, burst(now + lastBurst), now + at, 2000, sessions);
        expect(estimate).toBe(position / 100);
        if (previous !== undefined) expect(estimate).toBeLessThanOrEqual(previous);
        previous = estimate;
      }
    });

    it("should read a line with no release seen yet at the sessions' pace", () => {
      expect(estimateMinutes(1000, [], now, 2000, sessions)).toBe(10);
    });

    it('should slow down once nothing was released for longer than a session', () => {
      // Ten minutes without a release while people wait: the line is stalled (paused, the loop stopped).
      expect(estimateMinutes(60_000, burst(now - 10 * MINUTE), now, 2000, sessions)).toBeGreaterThan(1100);
      expect(estimateMinutes(60_000, burst(now - 5 * MINUTE - 4 * SECOND), now, 2000, sessions)).toBe(600);
    });

    it('should follow the rate when the sessions free places faster than it', () => {
      const steady = releases(50, 5);
      const roomy = { activeLimit: 1000, sessionMs: 5 * MINUTE };
      expect(estimateMinutes(120, steady, now, 10, roomy)).toBe(estimateMinutes(120, steady, now, 10));
      // Exactly as fast: the rate paces it too.
      expect(estimateMinutes(120, steady, now, 200, roomy)).toBe(estimateMinutes(120, steady, now, 200));
    });

    it('should follow the release times with no release rate or no place to release to', () => {
      const steady = releases(50, 5);
      expect(estimateMinutes(120, steady, now, 0, sessions)).toBe(estimateMinutes(120, steady, now, 0));
      expect(estimateMinutes(120, steady, now, 2000, { activeLimit: 0, sessionMs: 5 * MINUTE })).toBe(estimateMinutes(120, steady, now, 2000));
    });

    it('should never answer 0 while waiting', () => {
      expect(estimateMinutes(1, burst(now - 200), now, 2000, sessions)).toBe(1);
      expect(estimateMinutes(1, [], now, 1_000_000, { activeLimit: 100_000, sessionMs: 1000 })).toBe(1);
    });
  });
});
