import type { AdmissionResult } from './admission/run-admission';
import type { RampResult } from './capacity/ramp';
import type { CapacityResult } from './capacity/run-capacity';
import type { StoreComparisonResult } from './capacity/stores';
import type { EstimateResult } from './estimate-accuracy';
import type { GatewayOverheadResult } from './gateway-overhead';
import { TARGETS, type TargetCheck, type Verdict } from './goals';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** PASS/MISS for every target, from the figures of one run. */
export function checkTargets(
  capacity: CapacityResult | undefined,
  estimate: EstimateResult | undefined,
  gateway?: GatewayOverheadResult,
  admission?: AdmissionResult,
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
    // Judged once V8 has settled: a sample right after the arrivals holds tens of MB for the next burst.
    const perVisitor = capacity.memory.settled?.perVisitorBytes ?? capacity.memory.perVisitorBytes;
    checks.push({
      name: 'server memory per waiting visitor (RSS after GC, settled)',
      target: `≤ ${kb(TARGETS.memoryPerVisitorBytes)}`,
      measured: `${kb(perVisitor.rss)} RSS (heap ${kb(perVisitor.heapUsed)}; right after the arrivals ${kb(capacity.memory.perVisitorBytes.rss)})`,
      verdict: perVisitor.rss <= TARGETS.memoryPerVisitorBytes ? 'PASS' : 'MISS',
    });
    checks.push(...fanoutChecks(capacity));
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
  if (gateway) checks.push(...gatewayChecks(gateway));
  if (admission) checks.push(...admissionChecks(admission));
  return checks;
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

/** The line moving without holding the server: the fan-out of QueueMoved to every waiting socket. */
function fanoutChecks(capacity: CapacityResult): TargetCheck[] {
  const { moves, fanout, paced } = capacity;
  const sockets = moves.median.framesPerBatchP50;
  const small = capacity.settings.visitors < TARGETS.visitorsHeld;
  const within = (value: number, bound: number): Verdict => (small ? 'N/A' : Number.isFinite(value) && value <= bound ? 'PASS' : 'MISS');
  const note = small ? `only ${capacity.settings.visitors} visitors` : undefined;
  return [
    {
      name: `a release reaches every waiting socket (QueueMoved read by the visitors' processes), p99`,
      target: `≤ ${TARGETS.fanoutP99Ms} ms`,
      measured: `${moves.median.p99Ms} ms (p50 ${moves.median.p50Ms} ms; ${sockets} sockets a batch; the server wrote its last socket at p99 ${fanout.median.lastWriteP99Ms} ms)`,
      verdict: within(moves.median.p99Ms, TARGETS.fanoutP99Ms),
      note,
    },
    {
      name: "a release's last socket written by the server (QueueMoved), p99 of batches",
      target: `≤ ${TARGETS.fanoutP99Ms} ms`,
      measured:
        `${fanout.median.lastWriteP99Ms} ms (p50 ${fanout.median.lastWriteP50Ms} ms; writing ${fanout.median.microsPerSocketP50} µs a socket, ` +
        `where a bare loop of socket writes takes ${fanout.median.floor?.microsPerSocketWall ?? '–'} µs)`,
      verdict: within(fanout.median.lastWriteP99Ms, TARGETS.fanoutP99Ms),
      note,
    },
    {
      name: "server's event loop held by its own work, longest (paced runs with releases)",
      target: `≤ ${TARGETS.loopHoldMaxMs} ms`,
      measured:
        `${fixed(paced.median.serverOwnHoldMaxMs)} ms of its main thread's CPU time in the longest hold (GC pauses in it ${fixed(paced.median.serverOwnHoldGcMs ?? Number.NaN)} ms; ` +
        `by the clock ${paced.median.serverLoopDelayMaxMs} ms, waits for a core included; ` +
        `${paced.median.serverHoldsOver20Ms} holds over 20 ms, ${paced.median.serverHoldsWithGc ?? '–'} of them with a GC pause; longest GC pause ${fixed(paced.median.serverGcPauseMaxMs)} ms)`,
      verdict: within(paced.median.serverOwnHoldMaxMs ?? paced.median.serverLoopDelayMaxMs, TARGETS.loopHoldMaxMs),
      note,
    },
    {
      name: 'queue_info answered during a fan-out, p99',
      target: `≤ ${TARGETS.queueInfoDuringFanoutP99Ms} ms`,
      measured: `${fanout.median.queueInfoDuringP99Ms} ms (${fanout.median.queueInfoDuringCount} answers)`,
      verdict: within(fanout.median.queueInfoDuringP99Ms, TARGETS.queueInfoDuringFanoutP99Ms),
      note,
    },
  ];
}

/**
 * The Redis store beside the memory store, in the same run: judged on their servers side by side
 * in alternating slices (`capacity/stores.ts`); the quotient of the two capacity runs' ratios to the
 * bare server, each taken in its own run, is shown beside it, not judged (the bare server's
 * throughput moves with the machine's load between the runs).
 */
export function checkRedisTargets(stores?: StoreComparisonResult): TargetCheck[] {
  const checks: TargetCheck[] = [];
  if (stores) {
    const { median } = stores;
    const ratio = median.ratio;
    checks.push({
      name: 'queue_info throughput, Redis store ÷ memory store (side by side, alternating slices)',
      target: `≥ ${TARGETS.redisThroughputVsMemory}`,
      measured:
        `${fixed(ratio, 2)} (median of ${stores.runs.length} runs over ${stores.settings.rounds} pairs of fresh processes; per run: ${stores.runs.map((run) => fixed(run.ratio, 2)).join(', ')}; ` +
        `memory ${Math.round(median.memory.perSecond)}/s, Redis ${Math.round(median.redis.perSecond)}/s; CPU a request: ` +
        `server ${median.memory.serverCpuMicrosPerRequest} µs (memory), ${median.redis.serverCpuMicrosPerRequest} µs (Redis) + redis-server ${median.redis.storeCpuMicrosPerRequest} µs)`,
      verdict: Number.isFinite(ratio) && ratio >= TARGETS.redisThroughputVsMemory && stores.errors === 0 ? 'PASS' : 'MISS',
    });
  }
  return checks;
}

/** The knee of each capacity ramp; judged on the deployment that can reach it (Redis, one process per core). */
export function checkRampTargets(ramps: readonly RampResult[]): TargetCheck[] {
  return ramps.map((ramp) => ({
    name: `capacity ramp knee, ${ramp.settings.store} store (${ramp.settings.serverProcesses} server process${ramp.settings.serverProcesses > 1 ? 'es' : ''})`,
    target: `≥ ${TARGETS.rampKnee} visitors`,
    measured: `${ramp.knee} visitors (stopped by ${ramp.stoppedBy})`,
    verdict: ramp.knee >= TARGETS.rampKnee ? 'PASS' : ramp.settings.store === 'memory' ? 'N/A' : 'MISS',
    note: ramp.settings.store === 'memory' ? 'one process: bounded by its open files at about 19,000 sockets' : undefined,
  }));
}

function fixed(value: number | undefined, digits = 1): string {
  return value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : '–';
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
