/**
 * The origin a rehearsal stands in front of: how many admitted visitors it takes at once
 * (`--origin-capacity`), and how slowly it answers with so many (`--origin-latency`), the curve
 * adaptive admission follows.
 */
export interface OriginModel {
  /** Admitted visitors at once it takes; undefined: not said. */
  readonly capacity?: number;
  /** Its answer time (ms) with `active` admitted visitors; undefined: no curve given. */
  readonly latencyMs?: (active: number) => number;
  /** The curve as given, for the report. */
  readonly curve?: string;
}

export const LATENCY_SYNTAX = 'active:ms pairs, e.g. 0:80,400:250,800:2000';

/**
 * A latency curve, `active:ms` pairs by growing `active`: linear between them, flat before the
 * first and rising on the last slope after the last. An Error naming the curve when it does not parse.
 */
export function parseLatencyCurve(text: string): (active: number) => number {
  const points = text.split(',').map((pair) => {
    const match = /^\s*(\d+)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(pair);
    if (!match) throw new Error(`--origin-latency: "${pair}" does not parse; write ${LATENCY_SYNTAX}.`);
    return [Number(match[1]), Number(match[2])] as const;
  });
  for (let i = 1; i < points.length; i++) {
    if (points[i][0] <= points[i - 1][0]) throw new Error(`--origin-latency: "${text}": the active counts must grow; write ${LATENCY_SYNTAX}.`);
  }
  return (active) => {
    if (points.length === 1 || active <= points[0][0]) return points[0][1];
    let i = 1;
    while (i < points.length - 1 && points[i][0] < active) i++;
    const [x0, y0] = points[i - 1];
    const [x1, y1] = points[i];
    return Math.max(0, y0 + ((y1 - y0) * (active - x0)) / (x1 - x0));
  };
}
