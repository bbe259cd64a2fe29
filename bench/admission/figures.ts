/** Small shared figures of the admission benchmark. */
import { percentile } from '../stats';

export interface LatencyFigures {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** p50, p99 and max of latencies in ms, to 0.1 ms. */
export function latencyFigures(values: readonly number[]): LatencyFigures {
  const round = (value: number) => Math.round(value * 10) / 10;
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]),
  };
}
