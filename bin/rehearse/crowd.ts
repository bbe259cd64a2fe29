/**
 * A rehearsal's crowd, written on the command line: parts joined by `+`, each a number of visitors
 * and when they come, in ms from the opening (the room's event, or the start of the rehearsal):
 *   100000@open          all at the opening (`100000` alone says the same)
 *   20000@-5m            all five minutes before it (a pre-queue's crowd)
 *   ramp:50000/10m       evenly over the ten minutes from the opening
 *   waves:3x20000/5m     three waves of 20,000, one every five minutes, the first at the opening
 * A ramp or waves may start elsewhere than at the opening: `ramp:6000/10m@-10m`.
 */

/** One part of a crowd: `count` visitors, the first at `at`, evenly over `spreadMs`, `waves` times `everyMs` apart. */
export interface CrowdPart {
  readonly count: number;
  readonly at: number;
  readonly spreadMs: number;
  readonly waves: number;
  readonly everyMs: number;
}

export const CROWD_SYNTAX = 'N@open, N@-5m, ramp:N/10m, waves:3xN/5m (either @-5m to start elsewhere), joined by +';

/** Most visitors a rehearsal takes (the memory store holds them all). */
export const MAX_CROWD = 5_000_000;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `90s`, `10m`, `1.5h`, `-5m` as ms; undefined when it is none. */
export function durationMs(text: string): number | undefined {
  const match = /^(-?\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  return match ? Number(match[1]) * UNITS[match[2]] : undefined;
}

const COUNT = /^[1-9]\d{0,6}$/;

/** The crowd `text` says, or an Error naming the part that does not parse. */
export function parseCrowd(text: string): CrowdPart[] {
  const parts = text.split('+').map((part) => part.trim());
  const crowd = parts.map((part): CrowdPart => {
    const bad = () => new Error(`--crowd: "${part}" does not parse; write ${CROWD_SYNTAX}.`);
    const count = (value: string) => {
      if (!COUNT.test(value)) throw bad();
      return Number(value);
    };
    const positive = (value: string) => {
      const ms = durationMs(value);
      if (ms === undefined || ms <= 0) throw bad();
      return ms;
    };
    const startsAt = (value: string | undefined) => {
      const at = value === undefined ? 0 : durationMs(value);
      if (at === undefined) throw bad();
      return at;
    };
    const ramp = /^ramp:([^/]+)\/([^@]+)(?:@(.+))?$/.exec(part);
    if (ramp) return { count: count(ramp[1]), at: startsAt(ramp[3]), spreadMs: positive(ramp[2]), waves: 1, everyMs: 0 };
    const waves = /^waves:(\d+)x([^/]+)\/([^@]+)(?:@(.+))?$/.exec(part);
    if (waves) {
      const times = count(waves[1]);
      return { count: count(waves[2]), at: startsAt(waves[4]), spreadMs: 0, waves: times, everyMs: positive(waves[3]) };
    }
    const [size, when = 'open', ...rest] = part.split('@');
    if (rest.length > 0) throw bad();
    const at = when === 'open' ? 0 : durationMs(when);
    if (at === undefined) throw bad();
    return { count: count(size), at, spreadMs: 0, waves: 1, everyMs: 0 };
  });
  const total = crowdSize(crowd);
  if (total > MAX_CROWD) throw new Error(`--crowd: ${total} visitors; a rehearsal takes at most ${MAX_CROWD}.`);
  return crowd;
}

export function crowdSize(crowd: readonly CrowdPart[]): number {
  return crowd.reduce((sum, part) => sum + part.count * part.waves, 0);
}

/** Every visitor's arrival (ms from the opening), in order. */
export function arrivalTimes(crowd: readonly CrowdPart[]): Float64Array {
  const times = new Float64Array(crowdSize(crowd));
  let i = 0;
  for (const part of crowd) {
    for (let wave = 0; wave < part.waves; wave++) {
      for (let k = 0; k < part.count; k++) times[i++] = part.at + wave * part.everyMs + (part.spreadMs * k) / part.count;
    }
  }
  return times.sort();
}
