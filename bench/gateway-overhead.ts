/**
 * What the gateway costs in front of a site: the same load generator asks a plain Node `http`
 * origin directly and through the real server (`start(loadConfig(env))` with `UPSTREAM` set to
 * that origin), in alternating slices, so that a change in the machine's load weighs on both
 * alike. `PROTECT=/checkout`, so `/` passes the gate at once: the pure proxy path.
 *
 * Three processes: the origin and the gateway each in a child of their own (this file, started
 * with BENCH_GATEWAY_ROLE=origin or gateway), the load generator in the orchestrator.
 *
 * - latency: one keep-alive connection, sequential `GET /` (1 KB); p50/p99 direct and proxied,
 *   and what the gateway adds.
 * - throughput: a closed loop over many keep-alive connections; requests a second direct and
 *   proxied (median of the slices), and their ratio; CPU time per request of each process. On
 *   `GET /page` (about 1 ms of the origin's CPU first, the origin and the gateway pinned to one
 *   CPU and the load generator to another: a site's route, the one judged).
 * - streaming: a large download (`/download?mb=N`, generated in 64 KiB chunks) read as a stream,
 *   direct and proxied, then 1 GiB proxied, with the gateway's RSS sampled every 25 ms (flat
 *   memory: the same peak whatever the size); once more proxied with the
 *   reader stalled for a while, which a proxy without backpressure would pay for in memory (and
 *   the bytes the origin wrote ahead of the reader say how far backpressure let it get).
 * - an upload streamed to `POST /echo`, counted by the origin, direct and proxied (a check).
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Pool } from 'undici';
import { Errors, errorKind, lanes } from './capacity/http-client';
import { Child, serveRequests } from './capacity/ipc';
import type { CpuSample } from './capacity/protocol';
import { distribution, median } from './stats';
import { TARGETS } from './goals';

export interface GatewayOverheadOptions {
  /** Counted seconds per target (direct, proxied) in each of the latency and throughput phases. */
  readonly seconds: number;
  /** Keep-alive connections of the throughput loop. */
  readonly connections: number;
  /** Size of the streamed download, in MiB (the memory check streams 1 GiB, or ten times as much if that is more, once more). */
  readonly downloadMib: number;
  /** CPU time the working origin spends on each `GET /page` before answering (µs). */
  readonly originWorkMicros: number;
  /** The built page (the gateway serves the waiting page from it). */
  readonly pageDir: string;
  readonly log: (line: string) => void;
}

/** Every figure of the run; bench/README.md says what each is. */
export type GatewayOverheadResult = Awaited<ReturnType<typeof measureGatewayOverhead>>;

const MIB = 1024 * 1024;
/** The origin's `GET /` body. */
const BODY_BYTES = 1024;
/** The origin's download chunks. */
const CHUNK_BYTES = 64 * 1024;
/** Alternating slices per phase, half on each target: direct, proxied, proxied, direct, … */
const SLICES = 8;
/** Each target first runs this long uncounted in each phase (connections open, code warms up). */
const WARMUP_SECONDS = 1;
/** Warm-ups on the working origin that adjust its work to the CPU time asked, before it is measured. */
const CALIBRATION_STEPS = 2;
/** The long download: 1 GiB, or this many times the first if that is more; memory that grows with the size would show. */
const LONG_FACTOR = 10;
const longDownloadMib = (downloadMib: number) => Math.max(1024, LONG_FACTOR * downloadMib);
/** The stalled reader stops after this much, for this long. */
const STALL_AFTER_MIB = 8;
const STALL_MS = 2000;
const UPLOAD_MIB = 16;
/** A 100 MiB download takes a fraction of a second on loopback: samples this often catch its peak. */
const MEMORY_EVERY_MS = 25;

type Target = 'direct' | 'proxied';
const ORDER: readonly Target[] = Array.from({ length: SLICES }, (_, i) => (i % 4 === 0 || i % 4 === 3 ? 'direct' : 'proxied'));

interface Ready {
  readonly url: string;
  readonly pid: number;
  /** The origin's: rounds of its SHA-256 chain a `GET /page`. */
  readonly workRounds?: number;
}

/** Runs the whole gateway benchmark and returns its figures; both children are ended whatever happens. */
export async function measureGatewayOverhead(options: GatewayOverheadOptions) {
  const { log } = options;
  const children: Child<Ready>[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  try {
    const origin = await Child.start<Ready>(__filename, {
      name: 'gateway bench origin',
      env: { ...process.env, BENCH_GATEWAY_ROLE: 'origin', BENCH_GATEWAY_ORIGIN_WORK_US: String(options.originWorkMicros) },
    });
    children.push(origin);
    const gateway = await Child.start<Ready>(__filename, {
      name: 'gateway bench server',
      // Its log at the default level, as an adopter runs it (a line a request would cost here too).
      quiet: true,
      env: { ...process.env, BENCH_GATEWAY_ROLE: 'gateway', BENCH_GATEWAY_UPSTREAM: origin.ready.url, BENCH_PAGE_DIR: options.pageDir },
    });
    children.push(gateway);
    log(`  origin ${origin.ready.url} (pid ${origin.ready.pid}), gateway ${gateway.ready.url} (pid ${gateway.ready.pid})`);

    const urls: Record<Target, string> = { direct: origin.ready.url, proxied: gateway.ready.url };
    const errors = new Errors();
    const single: Record<Target, Client> = {
      direct: new Client(urls.direct, { pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 }),
      proxied: new Client(urls.proxied, { pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 }),
    };
    closers.push(
      () => single.direct.close(),
      () => single.proxied.close(),
    );
    const sliceSeconds = (2 * options.seconds) / SLICES;

    // Streaming first, while the gateway has seen only a few requests: its RSS is near its resting size.
    const memory = memoryProbe(gateway);
    for (const target of ['direct', 'proxied'] as const) await download(single[target], 1, errors);
    log(
      `  streaming: ${options.downloadMib} MiB direct, proxied, ${longDownloadMib(options.downloadMib)} MiB proxied, ` +
        `then ${options.downloadMib} MiB proxied and direct with the reader stalled ${STALL_MS / 1000} s…`,
    );
    const directDownload = await download(single.direct, options.downloadMib, errors);
    const proxiedDownload = await download(single.proxied, options.downloadMib, errors, { memory });
    const longDownload = await download(single.proxied, longDownloadMib(options.downloadMib), errors, { memory });
    const ports = [origin.ready.url, gateway.ready.url].map((url) => Number(new URL(url).port));
    const stall = {
      stallAfterMib: STALL_AFTER_MIB,
      stallMs: STALL_MS,
      originStreamed: () => origin.request<number>('streamed'),
      kernelQueued: () => kernelQueuedBytes(ports),
    };
    const stalledDownload = await download(single.proxied, options.downloadMib, errors, { ...stall, memory });
    // The same stall direct: what one pair of sockets holds, beside the two pairs and the gateway.
    const directStalledDownload = await download(single.direct, options.downloadMib, errors, stall);

    const uploadDirect = await upload(single.direct, UPLOAD_MIB, errors);
    const uploadProxied = await upload(single.proxied, UPLOAD_MIB, errors);

    log(`  latency: one keep-alive connection, ${options.seconds} s per target in ${SLICES} alternating slices…`);
    const latencies: Record<Target, number[]> = { direct: [], proxied: [] };
    for (const target of ['direct', 'proxied'] as const) await sequential(single[target], WARMUP_SECONDS, [], errors, false);
    for (const target of ORDER) await sequential(single[target], sliceSeconds, latencies[target], errors, true);

    log(`  throughput: ${options.connections} keep-alive connections, ${options.seconds} s per target in ${SLICES} alternating slices…`);
    const pools: Record<Target, Pool> = {
      direct: new Pool(urls.direct, { connections: options.connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 }),
      proxied: new Pool(urls.proxied, { connections: options.connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 }),
    };
    closers.push(
      () => pools.direct.close(),
      () => pools.proxied.close(),
    );
    const loop = { pools, connections: options.connections, sliceSeconds, origin, gateway, errors };
    const cpus = allowedCpus(process.pid);
    const pinning = cpus && cpus.length >= 2 ? { loadGenerator: cpus[0], servers: cpus[1] } : undefined;
    log(
      `    in front of an origin working ${options.originWorkMicros} µs of CPU a request (judged), ` +
        (pinning ? `origin and gateway on CPU ${pinning.servers}, load generator on CPU ${pinning.loadGenerator}…` : 'not pinned (no taskset, or one CPU)…'),
    );
    let originWorkRounds = origin.ready.workRounds ?? 0;
    const prepare = async () => {
      originWorkRounds = await origin.request<number>('calibrate');
      // Then from the pages themselves, under the load they are measured at: the CPU time of the
      // same rounds changes with what runs beside them (a quiet calibration was off by a third).
      for (let step = 0; step < CALIBRATION_STEPS; step++) {
        const before = await origin.request<CpuSample>('cpu');
        const { latencies: answered } = await closedLoop(pools.direct, '/page', options.connections, WARMUP_SECONDS, errors, false);
        const micros = (cpuSeconds(before, await origin.request<CpuSample>('cpu')) * 1e6) / Math.max(1, answered.length);
        originWorkRounds = await origin.request<number>('workRounds', Math.max(1, Math.round((originWorkRounds * options.originWorkMicros) / micros)));
      }
    };
    const working = await throughputPhase({ ...loop, path: '/page', pinning, allCpus: cpus, prepare });
    const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
    const latency = { direct: distribution(latencies.direct), proxied: distribution(latencies.proxied) };
    const gatewayMicros = working.proxied.cpuMicrosPerRequest.gateway ?? Number.NaN;
    const breakEvenOriginMicros = Math.round((gatewayMicros * TARGET_RATIO) / (1 - TARGET_RATIO));
    return {
      settings: {
        seconds: options.seconds,
        slices: SLICES,
        sliceSeconds,
        warmupSeconds: WARMUP_SECONDS,
        connections: options.connections,
        originWorkMicros: options.originWorkMicros,
        originWorkRounds,
        downloadMib: options.downloadMib,
        longDownloadMib: longDownloadMib(options.downloadMib),
        stallAfterMib: STALL_AFTER_MIB,
        stallMs: STALL_MS,
        bodyBytes: BODY_BYTES,
        chunkBytes: CHUNK_BYTES,
        uploadMib: UPLOAD_MIB,
      },
      latency: {
        ...latency,
        addedP50Ms: round(latency.proxied.p50 - latency.direct.p50, 3),
        addedP99Ms: round(latency.proxied.p99 - latency.direct.p99, 3),
      },
      throughput: { working, breakEvenOriginMicros },
      streaming: {
        direct: directDownload,
        proxied: proxiedDownload,
        proxiedLong: longDownload,
        proxiedStalled: stalledDownload,
        directStalled: directStalledDownload,
        ratio: round(proxiedDownload.mibPerSecond / directDownload.mibPerSecond, 3),
        longPeakOverShortPeak: (longDownload.gatewayRss?.max ?? Number.NaN) - (proxiedDownload.gatewayRss?.max ?? Number.NaN),
        longBuffersOverShortBuffers: (longDownload.gatewayRss?.maxArrayBuffers ?? Number.NaN) - (proxiedDownload.gatewayRss?.maxArrayBuffers ?? Number.NaN),
      },
      upload: { bytes: UPLOAD_MIB * MIB, direct: uploadDirect, proxied: uploadProxied },
      errors: { total: errors.total, kinds: errors.snapshot() },
    };
  } finally {
    await Promise.allSettled(closers.map((close) => close()));
    await Promise.allSettled(children.map((child) => child.stop(5_000)));
  }
}

/** The judged share of a bare origin's throughput. */
const TARGET_RATIO = TARGETS.gatewayThroughputRatio;

interface PhaseOptions {
  readonly pools: Record<Target, Pool>;
  readonly connections: number;
  readonly sliceSeconds: number;
  readonly origin: Child<Ready>;
  readonly gateway: Child<Ready>;
  readonly errors: Errors;
  /** What every request asks for. */
  readonly path: string;
  /** With it, the load generator runs on one CPU, the origin and the gateway together on another. */
  readonly pinning?: { readonly loadGenerator: number; readonly servers: number };
  /** The CPUs the processes go back to after a pinned phase. */
  readonly allCpus?: readonly number[];
  /** Runs once the processes are where the phase wants them, before the warm-up. */
  readonly prepare?: () => Promise<unknown>;
}

/**
 * A closed loop on `path`, direct and proxied in alternating slices after a warm-up on each,
 * with the CPU each process spent per answered request.
 */
async function throughputPhase(options: PhaseOptions) {
  const { pools, connections, sliceSeconds, origin, gateway, errors, path: target, pinning } = options;
  const pids = { loadGenerator: process.pid, servers: [origin.ready.pid, gateway.ready.pid] };
  if (pinning) {
    setAffinity(pids.loadGenerator, [pinning.loadGenerator]);
    for (const pid of pids.servers) setAffinity(pid, [pinning.servers]);
  }
  try {
    await options.prepare?.();
    for (const side of ['direct', 'proxied'] as const) await closedLoop(pools[side], target, connections, WARMUP_SECONDS, errors, false);
    const tallies: Record<Target, LoopTally> = { direct: newTally(), proxied: newTally() };
    for (const side of ORDER) {
      const before = await Promise.all([origin.request<CpuSample>('cpu'), gateway.request<CpuSample>('cpu')]);
      const clientBefore = process.cpuUsage();
      const slice = await closedLoop(pools[side], target, connections, sliceSeconds, errors, true);
      const client = process.cpuUsage(clientBefore);
      const after = await Promise.all([origin.request<CpuSample>('cpu'), gateway.request<CpuSample>('cpu')]);
      const tally = tallies[side];
      for (const ms of slice.latencies) tally.latencies.push(ms);
      tally.slicesPerSecond.push(slice.latencies.length / slice.seconds);
      tally.cpu.origin += cpuSeconds(before[0], after[0]);
      tally.cpu.gateway += cpuSeconds(before[1], after[1]);
      tally.cpu.client += (client.user + client.system) / 1e6;
    }
    const direct = side(tallies.direct, false);
    const proxied = side(tallies.proxied, true);
    const originMicros = direct.cpuMicrosPerRequest.origin;
    const gatewayMicros = proxied.cpuMicrosPerRequest.gateway ?? Number.NaN;
    return {
      path: target,
      ...(pinning ? { pinned: pinning } : {}),
      direct,
      proxied,
      ratio: Math.round((proxied.perSecond / direct.perSecond) * 1000) / 1000,
      sharedCoreRatio: Math.round((originMicros / (originMicros + gatewayMicros)) * 1000) / 1000,
    };
  } finally {
    if (pinning && options.allCpus) for (const pid of [pids.loadGenerator, ...pids.servers]) setAffinity(pid, options.allCpus);
  }
}

/** The CPUs `pid` may run on (Linux's `taskset`), or undefined where it cannot be told. */
function allowedCpus(pid: number): number[] | undefined {
  try {
    const list =
      execFileSync('taskset', ['-pc', String(pid)], { encoding: 'utf8' })
        .split(':')
        .pop() ?? '';
    const cpus = list
      .trim()
      .split(',')
      .flatMap((range) => {
        const [first, last = first] = range.split('-').map(Number);
        return Array.from({ length: last - first + 1 }, (_, i) => first + i);
      });
    return cpus.every(Number.isInteger) && cpus.length > 0 ? cpus : undefined;
  } catch {
    return undefined;
  }
}

/** Lets `pid` and all its threads run on `cpus` only. */
function setAffinity(pid: number, cpus: readonly number[]): void {
  execFileSync('taskset', ['-a', '-pc', cpus.join(','), String(pid)], { stdio: 'ignore' });
}

interface LoopTally {
  readonly latencies: number[];
  readonly slicesPerSecond: number[];
  readonly cpu: { origin: number; gateway: number; client: number };
}

const newTally = (): LoopTally => ({ latencies: [], slicesPerSecond: [], cpu: { origin: 0, gateway: 0, client: 0 } });
const cpuSeconds = (before: CpuSample, after: CpuSample) => (after.user - before.user + after.system - before.system) / 1e6;

function side(tally: LoopTally, proxied: boolean) {
  const perRequest = (seconds: number) => Math.round((seconds / Math.max(1, tally.latencies.length)) * 1e6 * 10) / 10;
  return {
    perSecond: Math.round(median(tally.slicesPerSecond)),
    slicesPerSecond: tally.slicesPerSecond.map((value) => Math.round(value)),
    answered: tally.latencies.length,
    latencyMs: distribution(tally.latencies),
    cpuMicrosPerRequest: {
      origin: perRequest(tally.cpu.origin),
      ...(proxied ? { gateway: perRequest(tally.cpu.gateway) } : {}),
      client: perRequest(tally.cpu.client),
    },
  };
}

/** One `GET /`, read whole; true when it was the origin's page. */
async function getPage(dispatcher: Client | Pool, target: string, errors: Errors, counted: boolean): Promise<boolean> {
  try {
    const { statusCode, body } = await dispatcher.request({ path: target, method: 'GET', headers: BROWSER_HEADERS });
    const bytes = (await body.arrayBuffer()).byteLength;
    if (statusCode === 200 && bytes === BODY_BYTES) return true;
    if (counted) errors.add(`GET ${target}: status ${statusCode}, ${bytes} bytes`);
  } catch (error) {
    if (counted) errors.add(`GET ${target}: ${errorKind(error)}`, String(error));
  }
  return false;
}

/**
 * The headers of a browser's navigation, as a visitor who went through the line sends them: the
 * site's session cookie and the waiting room's (which the gateway keeps from the origin). Both
 * paths parse them; what the gateway does with them is part of what it costs.
 */
const BROWSER_HEADERS = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  'accept-language': 'en-GB,en;q=0.9,fr;q=0.8',
  'accept-encoding': 'gzip, deflate, br, zstd',
  cookie:
    'shop_session=s%3Aa3f1c2e4b5d6a7f8e9d0c1b2a3f4e5d6.Xk2hYp7Qm9Lr3Tn8Wv5Zb1Cd4Ef6Gh0Ij2Kl; ' +
    'waiting_room_session=WyI0MWI2MTU2MC00Zjg1LTQxZWMtYWZjZC0zOGY3ZmQxZGQ4ODkiLDAsIkRQb1FYUTQxSXkyY09ySDVsSHVZRmxKU3daUjBhUEdyIiwiIl0.c2lnbmF0dXJlLW9mLXRoZS1zZXNzaW9u',
  'sec-fetch-dest': 'document',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-site': 'same-origin',
  'sec-fetch-user': '?1',
  'upgrade-insecure-requests': '1',
};

/** Sequential requests on one connection for `seconds`; each answer's latency (ms) into `into`. */
async function sequential(client: Client, seconds: number, into: number[], errors: Errors, counted: boolean): Promise<void> {
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const started = performance.now();
    const ok = await getPage(client, '/', errors, counted);
    if (ok && counted) into.push(performance.now() - started);
  }
}

/** One slice of the closed loop: every connection asks again as soon as its answer is in. */
async function closedLoop(pool: Pool, target: string, connections: number, seconds: number, errors: Errors, counted: boolean) {
  const latencies: number[] = [];
  const started = performance.now();
  const end = started + seconds * 1000;
  await lanes(connections, async () => {
    if (performance.now() >= end) return false;
    const sent = performance.now();
    if (await getPage(pool, target, errors, counted)) latencies.push(performance.now() - sent);
    return true;
  });
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

interface MemoryProbe {
  /** The gateway's RSS (bytes): from /proc when there is one (no work for the gateway), else over IPC. */
  readonly rss: () => Promise<number>;
  readonly source: 'proc' | 'ipc';
  /** The gateway's own account (`process.memoryUsage()`, over IPC): where the RSS went. */
  readonly usage: () => Promise<NodeJS.MemoryUsage>;
}

function memoryProbe(gateway: Child<Ready>): MemoryProbe {
  const file = `/proc/${gateway.ready.pid}/status`;
  const usage = () => gateway.request<NodeJS.MemoryUsage>('memory');
  if (!existsSync(file)) return { source: 'ipc', rss: async () => (await usage()).rss, usage };
  const rss = async () => {
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(file, 'utf8'))?.[1];
    if (kb === undefined) throw new Error(`no VmRSS in ${file}`);
    return Number(kb) * 1024;
  };
  return { source: 'proc', rss, usage };
}

/**
 * Bytes queued in the kernel (send and receive queues) of the TCP sockets with one end on
 * `ports`, from /proc/net/tcp; undefined where there is none. Listening sockets are left out.
 */
function kernelQueuedBytes(ports: readonly number[]): number | undefined {
  let total = 0;
  let found = false;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    found = true;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 5 || fields[3] === '0A') continue;
      const port = (address: string) => parseInt(address.slice(address.lastIndexOf(':') + 1), 16);
      if (!ports.includes(port(fields[1])) && !ports.includes(port(fields[2]))) continue;
      const [tx, rx] = fields[4].split(':').map((hex) => parseInt(hex, 16));
      total += tx + rx;
    }
  }
  return found ? total : undefined;
}

interface MemorySample {
  /** Bytes the reader had received when the sample was taken. */
  readonly received: number;
  readonly rss: number;
  readonly heapUsed: number;
  readonly arrayBuffers: number;
}

/**
 * Downloads `/download?mb=<mib>` as a stream, counting and discarding the bytes; with `memory`,
 * samples the gateway's memory every 100 ms meanwhile; with a stall, stops reading for a while
 * after the first `stallAfterMib` MiB.
 */
async function download(
  client: Client,
  mib: number,
  errors: Errors,
  options: {
    memory?: MemoryProbe;
    stallAfterMib?: number;
    stallMs?: number;
    originStreamed?: () => Promise<number>;
    kernelQueued?: () => number | undefined;
  } = {},
) {
  const { memory, originStreamed } = options;
  const streamedBefore = originStreamed ? await originStreamed() : 0;
  let inFlight: number | undefined;
  let inKernel: number | undefined;
  const samples: MemorySample[] = [];
  let received = 0;
  const sample = async () => {
    if (!memory) return;
    const at = received;
    const [rss, usage] = await Promise.all([memory.rss(), memory.usage()]);
    samples.push({ received: at, rss, heapUsed: usage.heapUsed, arrayBuffers: usage.arrayBuffers });
  };
  await sample();
  let sampling: Promise<unknown> = Promise.resolve();
  const timer = memory
    ? setInterval(() => {
        sampling = sampling.then(sample).catch(() => undefined);
      }, MEMORY_EVERY_MS)
    : undefined;
  const expected = mib * MIB;
  const stallAt = options.stallAfterMib === undefined ? Infinity : options.stallAfterMib * MIB;
  let status = 0;
  let stalled = false;
  const started = performance.now();
  try {
    const { statusCode, body } = await client.request({ path: `/download?mb=${mib}`, method: 'GET' });
    status = statusCode;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (!stalled && received >= stallAt) {
        stalled = true;
        await sleep(options.stallMs ?? 0);
        inKernel = options.kernelQueued?.();
        if (originStreamed) inFlight = (await originStreamed()) - streamedBefore - received;
      }
    }
  } catch (error) {
    errors.add(`download: ${errorKind(error)}`, String(error));
  } finally {
    if (timer) clearInterval(timer);
  }
  const seconds = (performance.now() - started) / 1000;
  await sampling;
  await sample();
  if (status !== 200 || received !== expected) errors.add(`download: status ${status}, ${received} of ${expected} bytes`);
  return {
    expectedBytes: expected,
    receivedBytes: received,
    status,
    seconds: Math.round(seconds * 1000) / 1000,
    mibPerSecond: Math.round((received / MIB / seconds) * 10) / 10,
    stallMs: stalled ? (options.stallMs ?? 0) : 0,
    ...(inFlight === undefined ? {} : { inFlightAtStallEndBytes: inFlight }),
    ...(inKernel === undefined ? {} : { inKernelAtStallEndBytes: inKernel }),
    ...(memory ? { gatewayRss: memoryFigures(samples, expected, memory.source) } : {}),
  };
}

function memoryFigures(samples: readonly MemorySample[], expected: number, source: 'proc' | 'ipc') {
  const maxOf = (list: readonly MemorySample[], key: 'rss' | 'heapUsed' | 'arrayBuffers') =>
    list.length === 0 ? Number.NaN : list.reduce((top, item) => Math.max(top, item[key]), -Infinity);
  const [first, last] = [samples[0], samples[samples.length - 1]];
  const max = maxOf(samples, 'rss');
  return {
    start: first.rss,
    max,
    end: last.rss,
    growth: max - first.rss,
    maxFirstHalf: maxOf(
      samples.filter((item) => item.received <= expected / 2),
      'rss',
    ),
    maxSecondHalf: maxOf(
      samples.filter((item) => item.received > expected / 2),
      'rss',
    ),
    startArrayBuffers: first.arrayBuffers,
    maxArrayBuffers: maxOf(samples, 'arrayBuffers'),
    startHeapUsed: first.heapUsed,
    maxHeapUsed: maxOf(samples, 'heapUsed'),
    samples: samples.length,
    source,
  };
}

/** Streams `mib` MiB to `POST /echo`; the origin answers how many bytes it counted. */
async function upload(client: Client, mib: number, errors: Errors) {
  const chunk = Buffer.alloc(CHUNK_BYTES, 0x61);
  const started = performance.now();
  let status = 0;
  let counted = 0;
  try {
    const body = Readable.from(
      (function* () {
        for (let sent = 0; sent < mib * MIB; sent += CHUNK_BYTES) yield chunk;
      })(),
    );
    const answer = await client.request({
      path: '/echo',
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(mib * MIB) },
      body,
    });
    status = answer.statusCode;
    const text = await answer.body.text();
    counted = status === 200 ? Number((JSON.parse(text) as { bytes: number }).bytes) : 0;
    if (status !== 200 || counted !== mib * MIB) errors.add(`upload: status ${status}, ${counted} of ${mib * MIB} bytes counted`, text);
  } catch (error) {
    errors.add(`upload: ${errorKind(error)}`, String(error));
  }
  return { status, counted, seconds: Math.round(((performance.now() - started) / 1000) * 1000) / 1000 };
}

// ---------------------------------------------------------------- the child processes

/**
 * The origin: plain Node http, keep-alive; a fixed page at once (`/`) or after the CPU work a
 * dynamic page stands for (`/page`), a generated download, a counted upload.
 */
async function runOrigin(): Promise<void> {
  const page = Buffer.alloc(BODY_BYTES, 'origin page. ');
  const chunk = Buffer.alloc(CHUNK_BYTES, 0x62);
  const workMicros = Number(process.env.BENCH_GATEWAY_ORIGIN_WORK_US ?? '1000');
  let workRounds = calibrateWork(workMicros, page);
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://origin');
    if (request.method === 'GET' && (url.pathname === '/' || url.pathname === '/page')) {
      if (url.pathname === '/page') pageWork(workRounds, page);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': BODY_BYTES });
      response.end(page);
      return;
    }
    if (request.method === 'GET' && url.pathname === '/download') {
      const mib = Number(url.searchParams.get('mb') ?? '1');
      if (!Number.isInteger(mib) || mib < 0 || mib > 100_000) {
        response.writeHead(400).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': mib * MIB });
      void stream(response, mib * MIB, chunk);
      return;
    }
    if (request.method === 'POST' && url.pathname === '/echo') {
      let bytes = 0;
      request.on('data', (data: Buffer) => (bytes += data.length));
      request.on('end', () => {
        const body = JSON.stringify({ bytes });
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        response.end(body);
      });
      return;
    }
    response.writeHead(404, { 'content-length': 0 }).end();
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  serveRequests({ url: `http://127.0.0.1:${port}`, pid: process.pid, workRounds } satisfies Ready, {
    cpu: (): CpuSample => process.cpuUsage(),
    streamed: () => streamedBytes,
    memory: () => process.memoryUsage(),
    // Again where the pages are measured (on the CPU it then shares with the gateway): the CPU
    // time of the same work changes with what runs beside it, a start-up measure was off by 2×.
    calibrate: () => (workRounds = calibrateWork(workMicros, page)),
    workRounds: (rounds: number) => (workRounds = rounds),
  });
}

/**
 * The CPU work of the working origin's page: a chain of SHA-256 over the page, standing for what
 * a dynamic page does before it answers (queries, templates). A fixed amount of work, so that its
 * CPU time a request holds whatever the machine's load (the bench measures it, per request).
 */
function pageWork(rounds: number, page: Buffer): Buffer {
  let digest = page;
  for (let round = 0; round < rounds; round++) digest = createHash('sha256').update(digest).update(page).digest();
  return digest;
}

/** The rounds of `pageWork` that take about `micros` of CPU in this process (median of five tries). */
function calibrateWork(micros: number, page: Buffer): number {
  const trial = 2000;
  pageWork(trial, page);
  const perRound = Array.from({ length: 5 }, () => {
    const before = process.cpuUsage();
    pageWork(trial, page);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / trial;
  });
  return Math.max(1, Math.round(micros / median(perRound)));
}

/** Bytes the origin's downloads have written so far (to the socket's buffer, if not yet sent). */
let streamedBytes = 0;

/** Writes `total` bytes of `chunk`s, waiting for the socket to drain when it asks to; stops if the client goes. */
async function stream(response: http.ServerResponse, total: number, chunk: Buffer): Promise<void> {
  let gone = false;
  response.once('close', () => (gone = true));
  for (let sent = 0; sent < total && !gone; sent += chunk.length) {
    const piece = total - sent >= chunk.length ? chunk : chunk.subarray(0, total - sent);
    streamedBytes += piece.length;
    if (!response.write(piece)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off('drain', done);
          response.off('close', done);
          resolve();
        };
        response.on('drain', done);
        response.on('close', done);
      });
    }
  }
  if (!gone) response.end();
}

/**
 * The gateway: the real `start(loadConfig(env))` in front of the origin, from an environment of
 * its own (so that the machine's REDIS_URL or PUSHER_* cannot change what is measured): memory
 * store, embedded realtime, `/` unprotected, the default log level.
 */
async function runGateway(): Promise<void> {
  const { loadConfig } = await import('../server/process/config');
  const { start } = await import('../server/process/start');
  const upstream = process.env.BENCH_GATEWAY_UPSTREAM;
  const pageDir = process.env.BENCH_PAGE_DIR;
  if (!upstream || !pageDir) throw new Error('BENCH_GATEWAY_UPSTREAM and BENCH_PAGE_DIR must be set.');
  const config = {
    ...loadConfig({
      UPSTREAM: upstream,
      PORT: '0',
      HOST: '127.0.0.1',
      PROTECT: '/checkout',
      ADMIN_TOKEN: randomBytes(24).toString('base64url'),
    }),
    assetsDir: pageDir,
    pageHtmlPath: path.join(pageDir, 'waiting.html'),
  };
  const server = await start(config);
  serveRequests({ url: server.url, pid: process.pid } satisfies Ready, {
    cpu: (): CpuSample => process.cpuUsage(),
    memory: () => process.memoryUsage(),
  });
}

if (require.main === module) {
  const role = process.env.BENCH_GATEWAY_ROLE;
  const run = role === 'origin' ? runOrigin : role === 'gateway' ? runGateway : undefined;
  if (!run) {
    console.error('Started by bench/run.ts (BENCH_ONLY=gateway npm run bench), with BENCH_GATEWAY_ROLE=origin or gateway.');
    process.exit(1);
  }
  run().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
