/**
 * A closed loop of HTTP requests by autocannon: every connection asks again as soon as its answer
 * is in. Each answer's time is taken from autocannon's own events, to the microsecond (its
 * histogram keeps whole milliseconds, too coarse for what a proxy adds).
 */
import autocannon from 'autocannon';

/** One slice of the loop: the 2xx answers' times (ms), how long it ran (s), the requests that failed or were not answered 2xx. */
export async function loadSlice(options: {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly headers?: Record<string, string>;
  /** Asked in turn by each connection; `setupRequest` may give each its own path and headers. */
  readonly requests?: autocannon.Request[];
}) {
  const latencies: number[] = [];
  const started = performance.now();
  const { url, connections, seconds: duration, headers, requests } = options;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const settings = { url, connections, pipelining: 1, duration, headers, requests };
    const instance = autocannon(settings, (error, done) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done)));
    instance.on('response', (_client, statusCode, _bytes, ms) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(ms);
    });
  });
  return { latencies, seconds: (performance.now() - started) / 1000, errors: result.errors + result.timeouts + result.non2xx };
}
