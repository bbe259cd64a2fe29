const MINUTE = 60_000;

/** How far back releases count for the observed rate. */
export const ESTIMATE_WINDOW_MS = 10 * MINUTE;
/** Releases seen in the window before the observed rate counts fully. */
export const ESTIMATE_FULL_WEIGHT = 10;
/** The shortest run of latest releases that can show a new rate: a quick run is not a rate. */
export const ESTIMATE_CHANGE_MIN_MS = MINUTE;
/** Without a release step for longer than this, a line on the release loop's beat is stalled. */
export const ESTIMATE_STALL_MS = 5000;
/**
 * How many standard errors apart the mean gap of the latest releases and that of the older
 * ones must be for the latest to be taken as a new rate. High, because the split is the best
 * of up to fifty tried: random releases must not pass for a change.
 */
const CHANGE_SCORE = 5;
/** A difference of mean gaps below this share is never a change (timer jitter, rounding). */
const CHANGE_TOLERANCE = 0.05;
/** How many release times a store keeps for the estimate, the newest. */
export const RELEASES_KEPT = 50;

/**
 * The estimated wait in whole minutes for a visitor at `position`: `position` releases at the
 * observed rate, rounded up (on the release loop's beat, `position / rate` is when the last of
 * them comes at the latest, so the wait shown is not a promise broken).
 *
 * The observed rate is read from the gaps between the releases of the last ten minutes, so that
 * a steady line is read exactly and random releases average out. When the latest gaps, over a
 * minute at least, stand apart from the older ones beyond their spread (the most different
 * split of the gaps into latest and older, in pooled standard errors), the rate changed there
 * and only the releases since count. Releases on the loop's beat show a change within about a
 * minute; irregular ones (manual, or as sessions end) keep the whole window unless the change
 * is large, since a few random gaps say little.
 *
 * Why this and not a simpler rate, measured on a simulated line whose rate halves (steady error;
 * minutes until back within 1 minute of the truth after the change; the error at the new rate):
 * - a count over the ten minutes, as before: 0.54; 7.25 after 6 → 3/min, 8.25 after 2 → 1/min.
 * - a count over the last six releases (a minute at least): 0.40; 1.25 and 4.5; but at random
 *   its error at the new rate is 3.7 min where the ten-minute count has 1.64.
 * - an exponentially weighted gap (weight 0.3 on the newest): 1 and 3.25; at random 4.05.
 * - this: 0.60; 1 and 1; at random 1.61.
 * The first two floor the span at a minute: above fifty a minute (the release times a store
 * keeps) that caps the rate, giving a steady error of 5.65 min at 120/min (this: 0.51). Their
 * lower steady error is a slight overestimate of the rate offsetting the rounding up.
 *
 * The time from the oldest release counted to `now` counts, and the next release is not assumed
 * before one usual step after the newest, so a stalled line slows the estimate down. Releases
 * sharing the oldest time only mark where counting starts (the store may have cut that batch
 * short), gaps are taken between release steps (a burst is one step, not a new rate), and a
 * single step counts over a minute at least, unless it fills the times kept: then the rate in force
 * if faster. While few releases were seen the observed rate is
 * blended with `perMinute`; with neither (`perMinute` 0 and no recent release) one release a
 * minute is assumed. Position 0 (released) gives 0; any other position gives at least 1.
 *
 * With `sessions` (the room's active limit and session length), a room whose sessions cannot free
 * places as fast as `perMinute` is paced by them instead: see `sessionPace`.
 */
export function estimateMinutes(position: number, recentReleases: readonly number[], now: number, perMinute: number, sessions?: SessionLimits): number {
  if (position <= 0) return 0;
  return minutesAt(position, estimateRate(recentReleases, now, perMinute, sessions));
}

/** The estimate at `position` (1 or more) for a line going at `rate` releases a minute: whole minutes, at least 1. */
export function minutesAt(position: number, rate: number): number {
  return Math.max(1, Math.ceil(position / rate));
}

/**
 * The release rate (a minute) `estimateMinutes` divides a position by at `now`: the same for every
 * position, so that the report keeps it once a minute and finds any place's estimate from it.
 */
export function estimateRate(recentReleases: readonly number[], now: number, perMinute: number, sessions?: SessionLimits): number {
  const paced = sessionPace(recentReleases, now, perMinute, sessions);
  if (paced !== undefined) return paced;
  const since = now - ESTIMATE_WINDOW_MS;
  // Newest first; sorted anyway, as servers sharing a store may stamp releases a little out of order.
  const seen = recentReleases.filter((time) => time > since && time <= now).sort((a, b) => b - a);
  let rate: number;
  if (seen.length === 0) {
    rate = perMinute > 0 ? perMinute : 1;
  } else {
    const observed = observedRate(seen, now, perMinute);
    const weight = Math.min(1, seen.length / ESTIMATE_FULL_WEIGHT);
    rate = perMinute > 0 ? weight * observed + (1 - weight) * perMinute : observed;
  }
  return rate;
}

/** What a room admits at once and for how long: `ReleasePolicy`'s `activeLimit` and `sessionMs`. */
export interface SessionLimits {
  readonly activeLimit: number;
  readonly sessionMs: number;
}

/**
 * The release rate of a room paced by its sessions, or undefined when its rate paces it.
 *
 * While people wait, a free place is filled at once (up to `perMinute`), so the active limit is
 * reached and a place frees only when an admission ends, `sessionMs` after it began: over a
 * session's length the room releases `activeLimit` at most, whatever the release times look like.
 * When that is below `perMinute`, the releases come as the sessions end: in bursts a session
 * apart when they began together (an opening), spread when they did not. Fifty release times
 * cannot tell one from the other (a burst of 500 fills them all, then nothing for five minutes),
 * and the rule above reads a burst as `perMinute` and the quiet after it as a stall, hours off
 * either way. `activeLimit` per `sessionMs` is the rate over any whole session instead: exact over
 * long waits, off by a part of a session over short ones (when in the cycle the next places free).
 *
 * An admission ends no sooner than `sessionMs` after it began (a revoked one holds its place until
 * its passes expire), so this is the fastest the room goes while people wait: a place released and
 * never claimed may free sooner (`claimMs`), and then the wait is shorter than said, never longer.
 * No release for longer than a session and a loop step, while people wait, is a stall (a paused
 * line, a stopped loop): the rate slows down from there as the rule above does.
 */
function sessionPace(recentReleases: readonly number[], now: number, perMinute: number, sessions: SessionLimits | undefined): number | undefined {
  if (!sessions || !(sessions.activeLimit > 0) || !(sessions.sessionMs > 0)) return undefined;
  const pace = (sessions.activeLimit * MINUTE) / sessions.sessionMs;
  if (!(perMinute > 0) || pace >= perMinute) return undefined;
  let newest = Number.NEGATIVE_INFINITY;
  for (const time of recentReleases) if (time <= now && time > newest) newest = time;
  const quiet = now - newest;
  const expected = sessions.sessionMs + ESTIMATE_STALL_MS;
  return quiet > expected && Number.isFinite(quiet) ? pace * (expected / quiet) : pace;
}

/** Releases a minute over `seen` (newest first, not empty), since the latest change of rate if one shows. */
function observedRate(seen: readonly number[], now: number, perMinute: number): number {
  // Release steps: the loop releases in batches above one a second, and an operator in bursts.
  const steps = [...new Set(seen)];
  if (steps.length === 1) {
    // One step shows no gap: a burst counts over a minute at least. But above the release times
    // kept a step (3,000 a minute on the loop's beat), every one kept is of the last step, which
    // would read as 50 a minute: the rate in force holds then, slowed down once no step has come
    // for longer than a stalled loop takes.
    const overAMinute = seen.length / Math.max(1, (now - seen[0]) / MINUTE);
    return Math.max(overAMinute, perMinute * Math.min(1, ESTIMATE_STALL_MS / Math.max(1, now - seen[0])));
  }
  const start = latestChange(steps, now) ?? steps.length - 1;
  return rateSince(seen, seen.indexOf(steps[start]), start, now);
}

/**
 * Releases a minute after `seen[from]` (the `from` newest, in `steps` steps) to the next
 * release, assumed no sooner than one usual step after the newest and no sooner than `now`.
 */
function rateSince(seen: readonly number[], from: number, steps: number, now: number): number {
  const span = seen[0] - seen[from];
  const next = Math.max(now, seen[0] + span / steps);
  return (from * (1 + 1 / steps) * MINUTE) / (next - seen[from]);
}

/**
 * The index in `steps` (release times, newest first) where the latest rate starts, if the gaps
 * between steps split into latest and older ones whose means differ beyond their spread.
 * Gaps between steps, not releases: a burst is one step, not a change of rate.
 */
function latestChange(steps: readonly number[], now: number): number | undefined {
  const gaps = steps.length - 1;
  const sums = [0];
  const squares = [0];
  for (let i = 0; i < gaps; i++) {
    const gap = steps[i] - steps[i + 1];
    sums.push(sums[i] + gap);
    squares.push(squares[i] + gap * gap);
  }
  const part = (from: number, to: number) => {
    const count = to - from;
    const mean = (sums[to] - sums[from]) / count;
    return { count, mean, spread: Math.max(0, squares[to] - squares[from] - count * mean * mean) };
  };
  let best: { at: number; score: number } | undefined;
  for (let at = 1; at <= gaps - 2; at++) {
    if (now - steps[at] < ESTIMATE_CHANGE_MIN_MS) continue;
    const latest = part(0, at);
    const older = part(at, gaps);
    const difference = Math.abs(latest.mean - older.mean) - CHANGE_TOLERANCE * Math.max(latest.mean, older.mean);
    if (difference <= 0) continue;
    const variance = (latest.spread + older.spread) / (gaps - 2);
    const error = Math.sqrt(variance * (1 / latest.count + 1 / older.count));
    const score = error === 0 ? Number.POSITIVE_INFINITY : difference / error;
    if (score > CHANGE_SCORE && (!best || score > best.score)) best = { at, score };
  }
  return best?.at;
}
