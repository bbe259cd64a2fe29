/** The figures the project promises on a 2-core machine (load generator included). */
export const TARGETS = {
  visitorsHeld: 10_000,
  releaseToDeliveryP99Ms: 100,
  throughputRatio: 0.6,
  memoryPerVisitorBytes: 10 * 1024,
  /** What the gateway may add to a request's p50 on one keep-alive connection (ms). */
  gatewayAddedP50Ms: 1,
  gatewayThroughputRatio: 0.7,
  // Flat memory: the gateway's highest RSS while a far larger download (1 GiB) streams through it may exceed
  // its highest during the first by this share of the extra bytes at most (one that kept 1 % would show).
  gatewayLongDownloadGrowthShare: 0.01,
  /** Backpressure: bytes the processes (the gateway and the reader) hold when a reader stalled 2 s resumes. */
  gatewayStalledHeldBytes: 2 * 1024 * 1024,
  /** Adaptive admission: share of the origin's capacity served at steady state, its p99 within the target. */
  adaptiveGoodput: 0.9,
  /** After the origin loses half its capacity: back within the target in this long, with fewer errors than this. */
  adaptiveResettleSeconds: 60,
  adaptiveResettleErrorShare: 0.01,
  /** A release's QueueMoved at every waiting socket (10,000), from the release decision. */
  fanoutP99Ms: 50,
  /** The longest the server's event loop may be held while the line moves. */
  loopHoldMaxMs: 20,
  /** queue_info answered while a fan-out is under way. */
  queueInfoDuringFanoutP99Ms: 50,
  /** queue_info throughput on the Redis store ÷ on the memory store, in the same run. */
  redisThroughputVsMemory: 0.9,
  /** Visitors waiting at the knee of the capacity ramp, on this 2-core machine with the load generator on it. */
  rampKnee: 30_000,
  /** The connector's check of an admitted visitor's pass, per request (µs). */
  passCheckUs: 20,
} as const;

/** A row of the targets table: PASS when `met`, MISS when not, N/A when it could not be told. */
export const check = (name: string, target: string, measured: string, met: boolean | undefined, note?: string) => {
  return { name, target, measured, verdict: met === undefined ? 'N/A' : met ? 'PASS' : 'MISS', note: note || undefined };
};
export type TargetCheck = ReturnType<typeof check>;
