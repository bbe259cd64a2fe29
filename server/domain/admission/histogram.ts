/**
 * Latencies counted in buckets 4 % wide (from 1 ms to ten minutes), so that a percentile is read
 * to within 4 % and the counts of several windows, or of several instances, add up bucket by bucket.
 */

/** Each bucket's upper bound is this many times its lower one. */
const GROWTH = 1.04;
const LOG_GROWTH = Math.log(GROWTH);
/** Bucket 0 holds everything under 1 ms; the last, everything from ten minutes on. */
export const BUCKETS = 2 + Math.ceil(Math.log(600_000) / LOG_GROWTH);

/** The bucket of a latency in ms. */
export function bucketOf(ms: number): number {
  if (!(ms >= 1)) return 0;
  return Math.min(BUCKETS - 1, 1 + Math.floor(Math.log(ms) / LOG_GROWTH));
}

/** The upper bound of a bucket in ms: a percentile is read as the bound of the bucket it falls in. */
export function upperBoundOf(bucket: number): number {
  return bucket <= 0 ? 1 : GROWTH ** bucket;
}

/** Counts by bucket, only those not zero: `{bucket: count}`. */
export type SparseCounts = Readonly<Record<number, number>>;

/**
 * The latency at or below which a share `q` (0 to 1) of `counts` falls, in whole ms; 0 for no
 * counts. Read as the upper bound of its bucket, so it is never below the truth by more than 4 %.
 */
export function percentileOf(counts: SparseCounts, q: number): number {
  const buckets = Object.keys(counts)
    .map(Number)
    .sort((a, b) => a - b);
  const total = buckets.reduce((sum, bucket) => sum + (counts[bucket] ?? 0), 0);
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bucket of buckets) {
    seen += counts[bucket] ?? 0;
    if (seen >= rank) return Math.round(upperBoundOf(bucket));
  }
  return Math.round(upperBoundOf(buckets[buckets.length - 1]));
}

/** The sum of several sparse counts. */
export function addCounts(into: Record<number, number>, more: SparseCounts): Record<number, number> {
  for (const [bucket, count] of Object.entries(more)) into[Number(bucket)] = (into[Number(bucket)] ?? 0) + count;
  return into;
}
