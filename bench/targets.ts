import type { AdmissionResult } from './admission/run-admission';
import type { GatewayOverheadResult } from './gateway-overhead';
import { TARGETS, type TargetCheck } from './goals';

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** PASS/MISS for the targets of the gateway and of adaptive admission; every other figure's goal is judged in `compare.ts`. */
export function checkTargets(gateway?: GatewayOverheadResult, admission?: AdmissionResult): TargetCheck[] {
  return [...(gateway ? gatewayChecks(gateway) : []), ...(admission ? admissionChecks(admission) : [])];
}

/** Whether a room kept the origin healthy in a window: its p99 within the target, fewer than 1 % errors. */
type RoomResult = AdmissionResult['rooms'][number];

function healthy(window: RoomResult['steady'], targetMs: number): boolean {
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
  const { working } = throughput;
  const errorNote = errors.total > 0 ? `${errors.total} failed requests in the gateway benchmark` : undefined;
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const streamed = [streaming.proxied, streaming.proxiedLong, streaming.proxiedStalled];
  const complete = streamed.every((download) => download.receivedBytes === download.expectedBytes);
  const flatBound = TARGETS.gatewayLongDownloadGrowthShare * (streaming.proxiedLong.expectedBytes - streaming.proxied.expectedBytes);
  const { inFlightAtStallEndBytes, inKernelAtStallEndBytes } = streaming.proxiedStalled;
  const held = inFlightAtStallEndBytes === undefined || inKernelAtStallEndBytes === undefined ? undefined : inFlightAtStallEndBytes - inKernelAtStallEndBytes;
  // The gateway's RSS before the first proxied download: both peaks are read against it.
  const rest = streaming.proxied.gatewayRss.start;
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
        `${working.ratio.toFixed(2)} (medians of ${working.direct.slices} slices: proxied ${working.proxied.perSecond}/s, direct ${working.direct.perSecond}/s; ` +
        `gateway ${working.proxied.cpuMicrosPerRequest.gateway} µs a request, enough for any origin above ${throughput.breakEvenOriginMicros} µs)`,
      verdict: errors.total === 0 && working.ratio >= TARGETS.gatewayThroughputRatio ? 'PASS' : 'MISS',
      note: working.pinned ? errorNote : [errorNote, 'not pinned: taskset missing or one CPU'].filter(Boolean).join('; '),
    },
    {
      name: `flat memory: the gateway's highest RSS while ${mib(streaming.proxiedLong.expectedBytes)} stream through it, beside its highest while ${mib(streaming.proxied.expectedBytes)} did`,
      target: `≤ +${mib(flatBound)} (${TARGETS.gatewayLongDownloadGrowthShare * 100} % of the extra bytes)`,
      measured:
        `${signedMib(streaming.longPeakOverShortPeak)} (${mib(streaming.proxiedLong.gatewayRss.max)} against ${mib(streaming.proxied.gatewayRss.max)}; above the RSS before the first, ${mib(rest)}: ` +
        `+${mib(streaming.proxied.gatewayRss.max - rest)} during the ${mib(streaming.proxied.expectedBytes)}, +${mib(streaming.proxiedLong.gatewayRss.max - rest)} during the ${mib(streaming.proxiedLong.expectedBytes)})`,
      verdict: complete && streaming.longPeakOverShortPeak <= flatBound ? 'PASS' : 'MISS',
      note: complete ? undefined : 'a download did not arrive whole',
    },
    {
      name: `backpressure: bytes the gateway and the reader hold when a reader stalled ${(streaming.proxiedStalled.stallMs ?? Number.NaN) / 1000} s resumes`,
      target: `≤ ${mib(TARGETS.gatewayStalledHeldBytes)}`,
      measured:
        held === undefined
          ? 'not measured (no /proc/net/tcp)'
          : `${mib(held)} (the kernel's socket queues held ${mib(streaming.proxiedStalled.inKernelAtStallEndBytes ?? Number.NaN)}; the gateway's RSS grew ${mib(streaming.proxiedStalled.gatewayRss.growth)})`,
      verdict: held === undefined ? 'N/A' : complete && held <= TARGETS.gatewayStalledHeldBytes ? 'PASS' : 'MISS',
    },
  ];
}
