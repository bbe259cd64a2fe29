/** How far back releases count for the observed rate. */
export const ESTIMATE_WINDOW_MS = 10 * 60_000;
/** Releases seen in the window before the observed rate counts fully. */
export const ESTIMATE_FULL_WEIGHT = 10;

/**
 * The estimated wait in whole minutes for a visitor at `position`.
 *
 * The rate is the releases seen in the last ten minutes, counted up to `now` (so a stalled
 * line slows the estimate down), blended with `perMinute` while few releases were seen: the
 * estimate starts from the configured rate and moves to the observed one as evidence comes in.
 * With neither (`perMinute` 0 and no recent release) one release a minute is assumed.
 * Position 0 (released) gives 0; any other position gives at least 1.
 */
export function estimateMinutes(
  position: number,
  recentReleases: readonly number[],
  now: number,
  perMinute: number,
): number {
  if (position <= 0) return 0;
  const since = now - ESTIMATE_WINDOW_MS;
  const seen = recentReleases.filter((time) => time > since && time <= now);
  const weight = Math.min(1, seen.length / ESTIMATE_FULL_WEIGHT);
  let rate: number;
  if (seen.length === 0) {
    rate = perMinute > 0 ? perMinute : 1;
  } else {
    const oldest = Math.min(...seen);
    // At least one minute of span, so that a burst of releases does not promise the moon.
    const spanMinutes = Math.max(1, (now - oldest) / 60_000);
    const observed = seen.length / spanMinutes;
    rate = perMinute > 0 ? weight * observed + (1 - weight) * perMinute : observed;
  }
  return Math.max(1, Math.ceil(position / rate));
}
