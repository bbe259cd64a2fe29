import type { AdmissionResult, RoomResult } from './admission/run-admission';
import type { CapacityResult } from './capacity/run-capacity';
import type { EstimateResult } from './estimate-accuracy';
import type { GatewayOverheadResult } from './gateway-overhead';

/** The figures the project promises on a 2-core machine (load generator included). */
export const TARGETS = {
  visitorsHeld: 10_000,
  releaseToDeliveryP99Ms: 100,
  throughputRatio: 0.6,
  memoryPerVisitorBytes: 10 * 1024,
  steadyEstimateErrorMinutes: 1,
  minutesBackWithin1AfterChange: 2,
  /** What the gateway may add to a request's p50 on one keep-alive connection (ms). */
  gatewayAddedP50Ms: 1,
  gatewayThroughputRatio: 0.7,
  /**
   * Flat memory: the gateway's highest RSS while a far larger download (1 GiB) streams through
   * it may exceed its highest during the first by this share of the extra bytes at most (a
   * stream that kept 1 % of what passed would show).
   */
  gatewayLongDownloadGrowthShare: 0.01,
  /** Backpressure: bytes the processes (the gateway and the reader) hold when a reader stalled 2 s resumes. */
  gatewayStalledHeldBytes: 2 * 1024 * 1024,
  /** Adaptive admission: share of the origin's capacity served at steady state, its p99 within the target. */
  adaptiveGoodput: 0.9,
  /** After the origin loses half its capacity: back within the target in this long, with fewer errors than this. */
  adaptiveResettleSeconds: 60,
  adaptiveResettleErrorShare: 0.01,
} as const;

export type Verdict = 'PASS' | 'MISS' | 'N/A';

export interface TargetCheck {
  readonly name: string;
  readonly target: string;
  readonly measured: string;
  readonly verdict: Verdict;
  readonly note?: string;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** PASS/MISS for every target, from the figures of one run. */
export function checkTargets(
  capacity: CapacityResult | undefined,
  estimate: EstimateResult | undefined,
  gateway?: GatewayOverheadResult,
  admission?: AdmissionResult,
  adaptiveEstimate?: EstimateResult,
): TargetCheck[] {
  const checks: TargetCheck[] = [];
  if (capacity) {
    const { held } = capacity.hold;
    const asked = capacity.settings.visitors;
    const errors = capacity.errors.total;
    checks.push({
      name: 'waiting visitors held at once, no errors',
      target: `${TARGETS.visitorsHeld} held, 0 errors`,
      measured: `${held} held, ${errors} errors`,
      verdict: errors > 0 || held < asked ? 'MISS' : asked < TARGETS.visitorsHeld ? 'N/A' : 'PASS',
      note: asked < TARGETS.visitorsHeld ? `only ${asked} visitors were asked for (BENCH_VISITORS)` : undefined,
    });
    const releases = capacity.releases.median;
    const p99 = releases.p99Ms;
    checks.push({
      name: 'release-to-delivery p99',
      target: `≤ ${TARGETS.releaseToDeliveryP99Ms} ms`,
      measured: `${p99} ms (p50 ${releases.p50Ms} ms; median of ${capacity.releases.runs.length} runs, ${releases.delivered} releases)`,
      verdict: Number.isFinite(p99) && p99 <= TARGETS.releaseToDeliveryP99Ms ? 'PASS' : 'MISS',
    });
    const ratio = capacity.saturation.median.ratio;
    checks.push({
      name: 'queue_info throughput / bare Node http',
      target: `≥ ${TARGETS.throughputRatio}`,
      measured: `${ratio.toFixed(2)} (median of ${capacity.saturation.runs.length} runs; medians: ours ${capacity.saturation.median.oursPerSecond.toFixed(0)}/s, bare ${capacity.saturation.median.barePerSecond.toFixed(0)}/s)`,
      verdict: ratio >= TARGETS.throughputRatio ? 'PASS' : 'MISS',
    });
    const perVisitor = capacity.memory.perVisitorBytes;
    checks.push({
      name: 'server memory per waiting visitor (RSS after GC)',
      target: `≤ ${kb(TARGETS.memoryPerVisitorBytes)}`,
      measured: `${kb(perVisitor.rss)} RSS (heap ${kb(perVisitor.heapUsed)})`,
      verdict: perVisitor.rss <= TARGETS.memoryPerVisitorBytes ? 'PASS' : 'MISS',
    });
  }
  if (estimate) {
    const figures = estimate.median;
    checks.push({
      name: 'wait estimate error, steady rate',
      target: `≤ ${TARGETS.steadyEstimateErrorMinutes} min`,
      measured: `${figures.steadyMaeMinutes} min`,
      verdict: figures.steadyMaeMinutes <= TARGETS.steadyEstimateErrorMinutes ? 'PASS' : 'MISS',
    });
    checks.push({
      name: 'wait estimate back within 1 min after a rate change',
      target: `≤ ${TARGETS.minutesBackWithin1AfterChange} min after the change`,
      measured: `${figures.minutesUntilWithin1} min (within 2 min of error after ${figures.minutesUntilWithin2} min; error ${figures.afterChangeMaeMinutes} min over the 2 min after)`,
      verdict: figures.minutesUntilWithin1 <= TARGETS.minutesBackWithin1AfterChange ? 'PASS' : 'MISS',
    });
  }
  if (adaptiveEstimate) {
    const error = adaptiveEstimate.median.steadyMaeMinutes;
    checks.push({
      name: 'wait estimate error, the rate set by adaptive admission',
      target: `≤ ${TARGETS.steadyEstimateErrorMinutes} min`,
      measured: `${error} min (back within 1 min ${adaptiveEstimate.median.minutesUntilWithin1} min after the origin halves)`,
      verdict: error !== null && error <= TARGETS.steadyEstimateErrorMinutes ? 'PASS' : 'MISS',
    });
  }
  if (gateway) checks.push(...gatewayChecks(gateway));
  if (admission) checks.push(...admissionChecks(admission));
  return checks;
}

/** Whether a room kept the origin healthy in a window: its p99 within the target, fewer than 1 % errors. */
export function healthy(window: RoomResult['steady'], targetMs: number): boolean {
  return window.origin.latencyMs.p99 <= targetMs && window.visitors.errorShare < TARGETS.adaptiveResettleErrorShare;
}

function admissionChecks(admission: AdmissionResult): TargetCheck[] {
  const { targetMs } = admission.settings;
  const adaptive = admission.rooms.find((room) => room.env.ADMISSION === 'adaptive') as RoomResult;
  const fixed = admission.rooms.filter((room) => room !== adaptive);
  const { steady, halved } = adaptive;
  const rivals = fixed.filter((room) => healthy(room.steady, targetMs));
  const beaten = rivals.filter((room) => steady.goodput > room.steady.goodput);
  // The worst day: healthy before the origin loses half its capacity, while it does, and after.
  const throughout = fixed.filter((room) => [room.steady, room.halved, room.after].every((window) => healthy(window, targetMs)));
  const beatenThroughout = throughout.filter((room) => steady.goodput > room.steady.goodput);
  const resettled = adaptive.resettleSeconds;
  return [
    {
      name: "adaptive admission: goodput ÷ the origin's capacity, steady, its p99 within the target",
      target: `≥ ${TARGETS.adaptiveGoodput}, p99 ≤ ${targetMs} ms`,
      measured: `${steady.goodput.toFixed(2)}, p99 ${steady.origin.latencyMs.p99} ms`,
      verdict: steady.goodput >= TARGETS.adaptiveGoodput && healthy(steady, targetMs) ? 'PASS' : 'MISS',
    },
    {
      name: 'adaptive admission beats every fixed setting that keeps the origin healthy (steady)',
      target: 'higher goodput than each',
      measured:
        rivals.length === 0
          ? 'no fixed setting kept the origin healthy'
          : rivals.map((room) => `${room.name} ${room.steady.goodput.toFixed(2)}`).join(', ') + ` against ${steady.goodput.toFixed(2)}`,
      verdict: beaten.length === rivals.length ? 'PASS' : 'MISS',
      note: "a setting is healthy when the origin's p99 is within the target and visitors see under 1 % errors",
    },
    {
      name: 'adaptive admission beats every fixed setting that keeps the origin healthy through the run, the halving included (steady goodput)',
      target: 'higher goodput than each',
      measured:
        throughout.length === 0
          ? 'no fixed setting kept the origin healthy through the run'
          : throughout.map((room) => `${room.name} ${room.steady.goodput.toFixed(2)}`).join(', ') + ` against ${steady.goodput.toFixed(2)}`,
      verdict: beatenThroughout.length === throughout.length ? 'PASS' : 'MISS',
    },
    {
      name: 'adaptive admission after the origin loses half its capacity',
      target: `p99 back within the target in ≤ ${TARGETS.adaptiveResettleSeconds} s, < 1 % errors`,
      measured: `${resettled === null ? 'not within the run' : `${resettled} s`}, ${(halved.visitors.errorShare * 100).toFixed(2)} % errors`,
      verdict:
        resettled !== null && resettled <= TARGETS.adaptiveResettleSeconds && halved.visitors.errorShare < TARGETS.adaptiveResettleErrorShare ? 'PASS' : 'MISS',
    },
  ];
}

function gatewayChecks(gateway: GatewayOverheadResult): TargetCheck[] {
  const { latency, throughput, streaming, errors } = gateway;
  const { constant, working } = throughput;
  const errorNote = errors.total > 0 ? `${errors.total} failed requests in the gateway benchmark` : undefined;
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const streamed = [streaming.proxied, streaming.proxiedLong, streaming.proxiedStalled];
  const complete = streamed.every((download) => download.receivedBytes === download.expectedBytes);
  const flatBound = TARGETS.gatewayLongDownloadGrowthShare * (streaming.proxiedLong.expectedBytes - streaming.proxied.expectedBytes);
  const { inFlightAtStallEndBytes, inKernelAtStallEndBytes } = streaming.proxiedStalled;
  const held =
    inFlightAtStallEndBytes === undefined || inKernelAtStallEndBytes === undefined ? undefined : inFlightAtStallEndBytes - inKernelAtStallEndBytes;
  // The gateway's RSS before the first proxied download: both peaks are read against it.
  const rest = streaming.proxied.gatewayRss?.start ?? Number.NaN;
  const signedMib = (bytes: number) => `${bytes >= 0 ? '+' : '−'}${mib(Math.abs(bytes))}`;
  return [
    {
      name: 'latency the gateway adds, p50 (one keep-alive connection)',
      target: `≤ ${TARGETS.gatewayAddedP50Ms} ms`,
      measured: `${ms(latency.addedP50Ms)} (p50 ${ms(latency.direct.p50)} direct, ${ms(latency.proxied.p50)} proxied; p99 +${ms(latency.addedP99Ms)})`,
      verdict: errors.total === 0 && latency.addedP50Ms <= TARGETS.gatewayAddedP50Ms ? 'PASS' : 'MISS',
      note: errorNote,
    },
    {
      name: `throughput through the gateway / direct, origin working ${Math.round(working.direct.cpuMicrosPerRequest.origin)} µs of CPU a request${working.pinned ? ', sharing one core with the gateway' : ''}`,
      target: `≥ ${TARGETS.gatewayThroughputRatio}`,
      measured:
        `${working.ratio.toFixed(2)} (medians of ${working.direct.slicesPerSecond.length} slices: proxied ${working.proxied.perSecond}/s, direct ${working.direct.perSecond}/s; ` +
        `gateway ${working.proxied.cpuMicrosPerRequest.gateway} µs a request, enough for any origin above ${throughput.breakEvenOriginMicros} µs)`,
      verdict: errors.total === 0 && working.ratio >= TARGETS.gatewayThroughputRatio ? 'PASS' : 'MISS',
      note: working.pinned ? errorNote : [errorNote, 'not pinned: taskset missing or one CPU'].filter(Boolean).join('; '),
    },
    {
      name: 'the same in front of an origin answering constant bytes, every process on every core (worst case, bounded by the CPU a request: not judged)',
      target: '–',
      measured:
        `${constant.ratio.toFixed(2)} (proxied ${constant.proxied.perSecond}/s, direct ${constant.direct.perSecond}/s; CPU a request: gateway ${constant.proxied.cpuMicrosPerRequest.gateway} µs, ` +
        `origin ${constant.direct.cpuMicrosPerRequest.origin} µs, load generator ${constant.direct.cpuMicrosPerRequest.client} µs)`,
      verdict: 'N/A',
      note: errorNote,
    },
    {
      name: `flat memory: the gateway's highest RSS while ${mib(streaming.proxiedLong.expectedBytes)} stream through it, beside its highest while ${mib(streaming.proxied.expectedBytes)} did`,
      target: `≤ +${mib(flatBound)} (${TARGETS.gatewayLongDownloadGrowthShare * 100} % of the extra bytes)`,
      measured:
        `${signedMib(streaming.longPeakOverShortPeak)} (${mib(streaming.proxiedLong.gatewayRss?.max ?? Number.NaN)} against ${mib(streaming.proxied.gatewayRss?.max ?? Number.NaN)}; ` +
        `Buffers ${signedMib(streaming.longBuffersOverShortBuffers)}; above the RSS before the first, ${mib(rest)}: ` +
        `+${mib((streaming.proxied.gatewayRss?.max ?? Number.NaN) - rest)} during the ${mib(streaming.proxied.expectedBytes)}, +${mib((streaming.proxiedLong.gatewayRss?.max ?? Number.NaN) - rest)} during the ${mib(streaming.proxiedLong.expectedBytes)})`,
      verdict: complete && streaming.longPeakOverShortPeak <= flatBound ? 'PASS' : 'MISS',
      note: complete ? undefined : 'a download did not arrive whole',
    },
    {
      name: `backpressure: bytes the gateway and the reader hold when a reader stalled ${streaming.proxiedStalled.stallMs / 1000} s resumes`,
      target: `≤ ${mib(TARGETS.gatewayStalledHeldBytes)}`,
      measured:
        held === undefined
          ? 'not measured (no /proc/net/tcp)'
          : `${mib(held)} (the kernel's socket queues held ${mib(streaming.proxiedStalled.inKernelAtStallEndBytes ?? Number.NaN)}; the gateway's RSS grew ${mib(streaming.proxiedStalled.gatewayRss?.growth ?? Number.NaN)})`,
      verdict: held === undefined ? 'N/A' : complete && held <= TARGETS.gatewayStalledHeldBytes ? 'PASS' : 'MISS',
    },
  ];
}
