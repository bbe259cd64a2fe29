/**
 * The connector's cost on an admitted visitor's request (docs/performance.md), through `decide()`,
 * the whole decision a middleware takes, on requests as Express hands them over.
 */
import { createConnector, PASS_COOKIE, REVOKED_ROUTE, signPass, VISITOR_COOKIE, type ConnectorRequest } from '@waiting-room/connector';
import { distribution, preciseNow } from './stats';
import { check, TARGETS, type TargetCheck } from './goals';

/** `visitors` admitted, each with a pass of their own, then `requestsEach` more requests each. */
type ConnectorPassOptions = { readonly visitors: number; readonly requestsEach: number; readonly log: (line: string) => void };

/** µs a request: a visitor's first (the pass verified) timed alone, the next by rounds of every visitor; their calls, feed reads apart. */
export type ConnectorPassResult = Awaited<ReturnType<typeof measureConnectorPass>>;

const SECRET = 'a-bench-secret-shared-by-site-and-room-0123';

export async function measureConnectorPass(options: ConnectorPassOptions) {
  // No waiting room listens: each read of the revocation feed fails, is counted, and admits (docs/pass.md).
  const connector = createConnector({ waitingRoom: 'http://127.0.0.1:9', room: 'shop', secret: SECRET, protect: ['/checkout'], log: () => undefined });
  const now = Math.floor(Date.now() / 1000);
  const requests: ConnectorRequest[] = [];
  for (let i = 0; i < options.visitors; i++) {
    const visitor = `bench-visitor-${String(i).padStart(8, '0')}`;
    const pass = await signPass({ room: 'shop', visitor, session: `session-${i}`, issuedAt: now, expiresAt: now + 3600 }, SECRET);
    const cookie = `_ga=GA1.1.123; ${VISITOR_COOKIE}=${visitor}; ${PASS_COOKIE}=${pass}; cart=3`;
    requests.push({ method: 'GET', url: `https://shop.example/checkout?item=${i}`, header: (name) => (name === 'cookie' ? cookie : undefined) });
  }
  let calls = 0;
  let feedReads = 0;
  const fetchBefore = globalThis.fetch;
  globalThis.fetch = (...args) => {
    const [input] = args;
    const url = input instanceof Request ? input.url : input instanceof URL ? input.href : input;
    if (url.includes(REVOKED_ROUTE)) feedReads += 1;
    else calls += 1;
    return fetchBefore(...args);
  };
  const began = preciseNow();
  try {
    options.log(`connector: ${options.visitors} admitted visitors, their first request each…`);
    const first: number[] = [];
    for (const request of requests) {
      const start = preciseNow();
      const decision = await connector.decide(request);
      first.push((preciseNow() - start) * 1000);
      if (decision.kind !== 'admitted') throw new Error(`A valid pass was not admitted: ${decision.kind}.`);
    }
    options.log(`connector: ${options.requestsEach} more requests each…`);
    const next: number[] = [];
    for (let round = 0; round < options.requestsEach; round++) {
      const start = preciseNow();
      for (const request of requests) {
        if ((await connector.decide(request)).kind !== 'admitted') throw new Error('A valid pass was not admitted.');
      }
      next.push(((preciseNow() - start) * 1000) / requests.length);
    }
    return {
      settings: { visitors: options.visitors, requestsEach: options.requestsEach },
      firstCheckUs: distribution(first),
      nextChecksUs: distribution(next),
      callsToWaitingRoom: calls,
      feedReads,
      seconds: (preciseNow() - began) / 1000,
    };
  } finally {
    globalThis.fetch = fetchBefore;
  }
}

export function connectorPassChecks({ nextChecksUs: next, firstCheckUs: first, callsToWaitingRoom, feedReads, seconds }: ConnectorPassResult): TargetCheck[] {
  return [
    check(
      "connector: checking the pass of an admitted visitor's request (median; p99 of rounds)",
      `≤ ${TARGETS.passCheckUs} µs`,
      `${next.p50.toFixed(1)} µs (p99 ${next.p99.toFixed(1)} µs); a visitor's first, verifying it: ${first.p50.toFixed(0)} µs (p99 ${first.p99.toFixed(0)} µs)`,
      next.p50 <= TARGETS.passCheckUs,
    ),
    // The revocation feed is read at most once each half of its 5 s bound, whatever the requests.
    check(
      "connector: calls to the waiting room by admitted visitors' requests",
      '0, and the revocation feed read at most once each 2.5 s',
      `${callsToWaitingRoom}; the feed read ${feedReads} times in ${seconds.toFixed(1)} s`,
      callsToWaitingRoom === 0 && feedReads <= 1 + Math.floor(seconds / 2.5),
    ),
  ];
}
