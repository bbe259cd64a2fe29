import { TIMINGS, type Timings } from './contract/constants.js';

/** The periods that must stay above zero: a zero period would poll in a busy loop. */
const PERIODS: ReadonlyArray<keyof Timings> = ['poll', 'anonymousPoll'];

/**
 * The spec's section 9 timings with the given overrides applied. An override left undefined
 * keeps the spec's value. Throws a RangeError naming the timing when an override is not a
 * finite number of milliseconds (or is zero for a polling period), so that a bad page-config
 * value fails loudly at start instead of turning into a silent busy loop or a timer that never fires.
 */
export function resolveTimings(overrides: Partial<Timings> = {}): Timings {
  const timings: Record<keyof Timings, number> = { ...TIMINGS };
  for (const name of Object.keys(TIMINGS) as Array<keyof Timings>) {
    const value = overrides[name];
    if (value === undefined) continue;
    const least = PERIODS.includes(name) ? 'greater than 0' : '0 or more';
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (value === 0 && PERIODS.includes(name))) {
      throw new RangeError(`timings.${name} must be a finite number of milliseconds, ${least}; got ${String(value)}`);
    }
    timings[name] = value;
  }
  return timings;
}
