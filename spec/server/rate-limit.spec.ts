import { MessageRate, type Verdict } from '../../server/realtime/rate-limit';

/** The verdicts of `count` messages sent `gapMs` apart from `from` on. */
function send(rate: MessageRate, count: number, from: number, gapMs = 0): Verdict[] {
  return Array.from({ length: count }, (_, i) => rate.take(from + i * gapMs));
}

const tally = (verdicts: readonly Verdict[]) =>
  verdicts.reduce<Record<string, number>>((counts, verdict) => ({ ...counts, [verdict]: (counts[verdict] ?? 0) + 1 }), {});

/** `perSecond` × `factor` messages a second, in ten slices a second, for `seconds` from `from`. */
function flood(rate: MessageRate, perSecond: number, factor: number, seconds: number, from: number): Verdict[] {
  const verdicts: Verdict[] = [];
  for (let slice = 0; slice < seconds * 10; slice++) verdicts.push(...send(rate, (perSecond * factor) / 10, from + slice * 100));
  return verdicts;
}

describe('MessageRate: a token bucket of the rate a second, holding twice that', () => {
  it('should let a burst of twice the rate through at once, and drop the rest', () => {
    const verdicts = send(new MessageRate(10, 0), 25, 0);

    expect(verdicts.slice(0, 20)).toEqual(Array(20).fill('accept'));
    expect(verdicts.slice(20)).toEqual(['drop-and-tell', 'drop', 'drop', 'drop', 'drop']);
  });

  it('should refill at the rate: one more message every 100 ms at 10 a second, never more than the burst', () => {
    const rate = new MessageRate(10, 0);
    send(rate, 20, 0);

    expect(rate.take(50)).toBe('drop-and-tell');
    expect(rate.take(100)).toBe('accept');
    expect(rate.take(100)).toBe('drop');
    // An hour idle refills the bucket to the burst, not beyond.
    expect(tally(send(rate, 30, 3_600_000))).toEqual({ accept: 20, 'drop-and-tell': 1, drop: 9 });
  });

  it('should keep a client at the rate: 10 a second for a minute, all accepted', () => {
    const rate = new MessageRate(10, 0);

    expect(tally(send(rate, 600, 0, 100))).toEqual({ accept: 600 });
  });

  it('should tell once per second at most, whatever the client sends', () => {
    const rate = new MessageRate(10, 0);
    // Three times the rate for five seconds: the client is told once in each second.
    const verdicts = flood(rate, 10, 3, 5, 0);

    expect(tally(verdicts)['drop-and-tell']).toBeLessThanOrEqual(5);
    expect(tally(verdicts)['drop-and-tell']).toBeGreaterThanOrEqual(4);
    expect(verdicts).not.toContain('flood');
  });
});

describe('MessageRate: flooding', () => {
  it('should call it a flood once drops reach ten times the rate in three seconds in a row', () => {
    const rate = new MessageRate(10, 0);
    // 150 a second: drops of about 130 in the first second (after the burst), 140 in the next ones.
    const verdicts = flood(rate, 10, 15, 3, 0);

    expect(verdicts).toContain('flood');
    // Not before the third second.
    expect(verdicts.indexOf('flood')).toBeGreaterThanOrEqual(2 * 150);
  });

  it('should not call one burst a flood, however large', () => {
    const rate = new MessageRate(10, 0);

    expect(send(rate, 100_000, 0)).not.toContain('flood');
    expect(rate.take(1500)).not.toBe('flood');
    expect(tally(send(rate, 5, 5000))).toEqual({ accept: 5 });
  });

  it('should not call it a flood under ten times the rate, however long', () => {
    const rate = new MessageRate(10, 0);

    // 100 a second: 90 dropped each second, under the 100 that make a flooded second.
    expect(flood(rate, 10, 10, 30, 0)).not.toContain('flood');
  });

  it('should start the count again after a quiet second', () => {
    const rate = new MessageRate(10, 0);
    const first = flood(rate, 10, 15, 2, 0);
    // A second and a half without a message, then two more flooded seconds.
    const second = flood(rate, 10, 15, 2, 3500);

    expect([...first, ...second]).not.toContain('flood');
    expect(flood(rate, 10, 15, 1, 5500)).toContain('flood');
  });
});
