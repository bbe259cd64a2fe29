/**
 * What the gateway costs in front of a site (docs/gateway.md, "Overhead"): autocannon asks a plain
 * Node `http` origin (this file, with BENCH_GATEWAY_ROLE=origin) directly and through the real
 * server (`admission/gateway.ts`) in alternating slices, so that the machine's load weighs on both.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'undici';
import { Child, serveRequests } from './capacity/ipc';
import { loadSlice } from './load';
import { cpuSeconds, distribution, median, round } from './stats';
import { check, TARGETS, type TargetCheck } from './goals';

/** `seconds` counted per target in each phase, `downloadMib` streamed (then 1 GiB), `originWorkMicros` of CPU per `GET /page`. */
type Options = { seconds: number; connections: number; downloadMib: number; originWorkMicros: number; pageDir: string; log: (line: string) => void };

export type GatewayOverheadResult = Awaited<ReturnType<typeof measureGatewayOverhead>>;

const MIB = 1024 * 1024;
/** Alternating slices per phase, half on each target (direct, proxied, proxied, direct, …), after 1 s uncounted on each. */
const SLICES = 8;
const WARMUP_SECONDS = 1;
/** Warm-ups on the working origin that adjust its work to the CPU time asked, before it is measured. */
const CALIBRATION_STEPS = 2;
const longDownloadMib = (downloadMib: number) => Math.max(1024, 10 * downloadMib);
/** The stalled reader stops after 8 MiB for 2 s; the gateway's RSS is sampled every 25 ms, to catch a 100 MiB download's peak. */
const [STALL_AFTER_MIB, STALL_MS, MEMORY_EVERY_MS] = [8, 2000, 25];

type Target = 'direct' | 'proxied';
const ORDER: readonly Target[] = Array.from({ length: SLICES }, (_, i) => (i % 4 === 0 || i % 4 === 3 ? 'direct' : 'proxied'));
type Ready = { readonly url: string; readonly pid: number };

/** A browser's navigation headers after the line: the site's session cookie and the room's (the gateway keeps it from the origin); part of what it costs. */
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

/** Runs the whole gateway benchmark and returns its figures; both children are ended whatever happens. */
export async function measureGatewayOverhead(options: Options) {
  const { log } = options;
  const children: Child<Ready>[] = [];
  let errors = 0;
  try {
    const origin = await Child.start<Ready>(__filename, { name: 'gateway bench origin', env: { ...process.env, BENCH_GATEWAY_ROLE: 'origin' } });
    children.push(origin);
    // The real server from an environment of its own (so that the machine's REDIS_URL or PUSHER_*
    // cannot change what is measured): memory store, `/` unprotected, its log at the default
    // level, as an adopter runs it (a line a request would cost here too).
    const env = { UPSTREAM: origin.ready.url, PORT: '0', HOST: '127.0.0.1', PROTECT: '/checkout', ADMIN_TOKEN: randomBytes(24).toString('base64url') };
    const gateway = await Child.start<Ready>(path.join(__dirname, 'admission/gateway.ts'), {
      name: 'gateway bench server',
      quiet: true,
      env: { ...process.env, BENCH_ADMISSION_ENV: JSON.stringify(env), BENCH_PAGE_DIR: options.pageDir },
    });
    children.push(gateway);
    const urls: Record<Target, string> = { direct: origin.ready.url, proxied: gateway.ready.url };
    const sliceSeconds = (2 * options.seconds) / SLICES;

    // Streaming first, while the gateway has seen only a few requests: its RSS is near its resting size.
    log(`  streaming: ${options.downloadMib} MiB, ${longDownloadMib(options.downloadMib)} MiB, then ${options.downloadMib} MiB with the reader stalled…`);
    const client = new Client(urls.proxied);
    const memory = memoryProbe(gateway);
    let streaming;
    try {
      await download(client, 1);
      const proxied = await download(client, options.downloadMib, { memory });
      const proxiedLong = await download(client, longDownloadMib(options.downloadMib), { memory });
      const ports = [urls.direct, urls.proxied].map((url) => Number(new URL(url).port));
      const proxiedStalled = await download(client, options.downloadMib, {
        memory,
        stall: { originStreamed: () => origin.request<number>('streamed'), kernelQueued: () => kernelQueuedBytes(ports) },
      });
      streaming = { proxied, proxiedLong, proxiedStalled, longPeakOverShortPeak: proxiedLong.gatewayRss.max - proxied.gatewayRss.max };
    } finally {
      await client.close();
    }

    log(`  latency: one keep-alive connection, ${options.seconds} s per target in ${SLICES} alternating slices…`);
    const latencies: Record<Target, number[]> = { direct: [], proxied: [] };
    for (const target of ['direct', 'proxied'] as const) await loadSlice({ url: `${urls[target]}/`, connections: 1, seconds: WARMUP_SECONDS });
    for (const target of ORDER) {
      const slice = await loadSlice({ url: `${urls[target]}/`, connections: 1, seconds: sliceSeconds, headers: BROWSER_HEADERS });
      latencies[target].push(...slice.latencies);
      errors += slice.errors;
    }
    const latency = { direct: distribution(latencies.direct), proxied: distribution(latencies.proxied) };

    log(`  throughput: ${options.connections} keep-alive connections on an origin working ${options.originWorkMicros} µs a request…`);
    const working = await throughputPhase(options, urls, sliceSeconds, origin, gateway);
    errors += working.errors;
    const gatewayMicros = working.proxied.cpuMicrosPerRequest.gateway;
    const ratio = TARGETS.gatewayThroughputRatio;
    return {
      settings: { seconds: options.seconds, slices: SLICES, sliceSeconds, connections: options.connections, originWorkMicros: options.originWorkMicros },
      latency: { ...latency, addedP50Ms: round(latency.proxied.p50 - latency.direct.p50, 3), addedP99Ms: round(latency.proxied.p99 - latency.direct.p99, 3) },
      throughput: { working, breakEvenOriginMicros: Math.round((gatewayMicros * ratio) / (1 - ratio)) },
      streaming,
      errors: { total: errors },
    };
  } finally {
    await Promise.allSettled(children.map((child) => child.stop(5_000)));
  }
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** PASS/MISS for the gateway's targets. */
export function gatewayChecks({ latency, throughput, streaming, errors }: GatewayOverheadResult): TargetCheck[] {
  const { working } = throughput;
  const { proxied: short, proxiedLong: long, proxiedStalled: stalled } = streaming;
  const errorNote = errors.total > 0 ? `${errors.total} failed requests in the gateway benchmark` : undefined;
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const complete = [short, long, stalled].every((download) => download.receivedBytes === download.expectedBytes);
  const flatBound = TARGETS.gatewayLongDownloadGrowthShare * (long.expectedBytes - short.expectedBytes);
  const { inFlightAtStallEndBytes: inFlight, inKernelAtStallEndBytes: inKernel } = stalled;
  const held = inFlight === undefined || inKernel === undefined ? undefined : inFlight - inKernel;
  // The gateway's RSS before the first proxied download: both peaks are read against it.
  const rest = short.gatewayRss.start;
  return [
    check(
      'latency the gateway adds, p50 (one keep-alive connection)',
      `≤ ${TARGETS.gatewayAddedP50Ms} ms`,
      `${ms(latency.addedP50Ms)} (p50 ${ms(latency.direct.p50)} direct, ${ms(latency.proxied.p50)} proxied; p99 +${ms(latency.addedP99Ms)})`,
      errors.total === 0 && latency.addedP50Ms <= TARGETS.gatewayAddedP50Ms,
      errorNote,
    ),
    check(
      `throughput through the gateway / direct, origin working ${Math.round(working.direct.cpuMicrosPerRequest.origin)} µs of CPU a request${working.pinned ? ', sharing one core with the gateway' : ''}`,
      `≥ ${TARGETS.gatewayThroughputRatio}`,
      `${working.ratio.toFixed(2)} (medians of ${working.direct.slices} slices: proxied ${working.proxied.perSecond}/s, direct ${working.direct.perSecond}/s; ` +
        `gateway ${working.proxied.cpuMicrosPerRequest.gateway} µs a request, enough for any origin above ${throughput.breakEvenOriginMicros} µs)`,
      errors.total === 0 && working.ratio >= TARGETS.gatewayThroughputRatio,
      working.pinned ? errorNote : [errorNote, 'not pinned: taskset missing or one CPU'].filter(Boolean).join('; '),
    ),
    check(
      `flat memory: the gateway's highest RSS while ${mib(long.expectedBytes)} stream through it, beside its highest while ${mib(short.expectedBytes)} did`,
      `≤ +${mib(flatBound)} (${TARGETS.gatewayLongDownloadGrowthShare * 100} % of the extra bytes)`,
      `${streaming.longPeakOverShortPeak >= 0 ? '+' : '−'}${mib(Math.abs(streaming.longPeakOverShortPeak))} (${mib(long.gatewayRss.max)} against ${mib(short.gatewayRss.max)}; above the RSS before the first, ${mib(rest)}: ` +
        `+${mib(short.gatewayRss.max - rest)} during the ${mib(short.expectedBytes)}, +${mib(long.gatewayRss.max - rest)} during the ${mib(long.expectedBytes)})`,
      complete && streaming.longPeakOverShortPeak <= flatBound,
      complete ? undefined : 'a download did not arrive whole',
    ),
    check(
      `backpressure: bytes the gateway and the reader hold when a reader stalled ${(stalled.stallMs ?? Number.NaN) / 1000} s resumes`,
      `≤ ${mib(TARGETS.gatewayStalledHeldBytes)}`,
      held === undefined
        ? 'not measured (no /proc/net/tcp)'
        : `${mib(held)} (the kernel's socket queues held ${mib(inKernel ?? Number.NaN)}; the gateway's RSS grew ${mib(stalled.gatewayRss.growth)})`,
      held === undefined ? undefined : complete && held <= TARGETS.gatewayStalledHeldBytes,
    ),
  ];
}

/** A closed loop on `GET /page` in alternating slices, with each process's CPU a request; origin and gateway share one CPU (where `taskset` can pin them). */
async function throughputPhase(
  { connections, originWorkMicros }: Options,
  urls: Record<Target, string>,
  sliceSeconds: number,
  origin: Child<Ready>,
  gateway: Child<Ready>,
) {
  const cpus = allowedCpus(process.pid);
  const pinned = cpus && cpus.length >= 2 ? { loadGenerator: cpus[0], servers: cpus[1] } : undefined;
  const pids = [process.pid, origin.ready.pid, gateway.ready.pid];
  if (pinned) pids.forEach((pid, i) => setAffinity(pid, [i === 0 ? pinned.loadGenerator : pinned.servers]));
  const loop = (target: Target, seconds: number) => loadSlice({ url: `${urls[target]}/page`, connections, seconds, headers: BROWSER_HEADERS });
  try {
    // Calibrated where the pages are measured: the CPU time of the same work changes with what
    // runs beside it (a quiet calibration was off by a third).
    let rounds = await origin.request<number>('calibrate', originWorkMicros);
    for (let step = 0; step < CALIBRATION_STEPS; step++) {
      const before = await origin.request<NodeJS.CpuUsage>('cpu');
      const { latencies } = await loop('direct', WARMUP_SECONDS);
      const micros = (cpuSeconds(before, await origin.request<NodeJS.CpuUsage>('cpu')) * 1e6) / Math.max(1, latencies.length);
      rounds = await origin.request<number>('workRounds', Math.max(1, Math.round((rounds * originWorkMicros) / micros)));
    }
    await loop('proxied', WARMUP_SECONDS);
    const tallies = { direct: tally(), proxied: tally() };
    let errors = 0;
    const cpu = () => Promise.all([origin.request<NodeJS.CpuUsage>('cpu'), gateway.request<NodeJS.CpuUsage>('cpu')]);
    for (const target of ORDER) {
      const before = await cpu();
      const slice = await loop(target, sliceSeconds);
      const after = await cpu();
      errors += slice.errors;
      const into = tallies[target];
      into.answered += slice.latencies.length;
      into.perSecond.push(slice.latencies.length / slice.seconds);
      into.origin += cpuSeconds(before[0], after[0]);
      into.gateway += cpuSeconds(before[1], after[1]);
    }
    const side = ({ answered, perSecond, origin, gateway }: ReturnType<typeof tally>) => {
      const perRequest = (seconds: number) => round((seconds / Math.max(1, answered)) * 1e6, 1);
      const cpuMicrosPerRequest = { origin: perRequest(origin), gateway: perRequest(gateway) };
      return { perSecond: Math.round(median(perSecond)), slices: perSecond.length, cpuMicrosPerRequest };
    };
    const [direct, proxied] = [side(tallies.direct), side(tallies.proxied)];
    return { ...(pinned ? { pinned } : {}), direct, proxied, ratio: round(proxied.perSecond / direct.perSecond, 3), errors };
  } finally {
    if (pinned && cpus) for (const pid of pids) setAffinity(pid, cpus);
  }
}

const tally = () => ({ answered: 0, perSecond: [] as number[], origin: 0, gateway: 0 });

/** The CPUs `pid` may run on (Linux's `taskset`, e.g. "0-1,4"), or undefined where it cannot be told. */
function allowedCpus(pid: number): number[] | undefined {
  try {
    const list = /:\s*(\S*)\s*$/.exec(execFileSync('taskset', ['-pc', String(pid)], { encoding: 'utf8' }))?.[1] ?? '';
    const cpus = list.split(',').flatMap((range) => {
      const [first, last = first] = range.trim().split('-').map(Number);
      return Array.from({ length: last - first + 1 }, (_, i) => first + i);
    });
    return cpus.every(Number.isInteger) && cpus.length > 0 ? cpus : undefined;
  } catch {
    return undefined;
  }
}

/** Lets `pid` and all its threads run on `cpus` only. */
const setAffinity = (pid: number, cpus: readonly number[]) => execFileSync('taskset', ['-a', '-pc', cpus.join(','), String(pid)], { stdio: 'ignore' });

/** The gateway's RSS (bytes), from /proc: no work for the gateway. */
const memoryProbe = (gateway: Child<Ready>) => async () =>
  Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${gateway.ready.pid}/status`, 'utf8'))?.[1]) * 1024;

/** Bytes in the kernel's send and receive queues of the TCP sockets (not listening) with an end on `ports`, from /proc/net/tcp; undefined without it. */
function kernelQueuedBytes(ports: readonly number[]): number | undefined {
  const files = ['/proc/net/tcp', '/proc/net/tcp6'].filter((file) => existsSync(file));
  if (files.length === 0) return undefined;
  let total = 0;
  const port = (address: string) => parseInt(address.slice(address.lastIndexOf(':') + 1), 16);
  for (const line of files.flatMap((file) => readFileSync(file, 'utf8').split('\n').slice(1))) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 5 || fields[3] === '0A' || (!ports.includes(port(fields[1])) && !ports.includes(port(fields[2])))) continue;
    const [tx, rx] = fields[4].split(':').map((hex) => parseInt(hex, 16));
    total += tx + rx;
  }
  return total;
}

/**
 * Streams `/download?mb=<mib>`, discarding the bytes; `memory`: samples the gateway's RSS meanwhile; `stall`: stops reading
 * for `STALL_MS` after `STALL_AFTER_MIB` MiB, then reads where the bytes the origin wrote ahead of the reader are.
 */
type Stall = { originStreamed: () => Promise<number>; kernelQueued: () => number | undefined };
async function download(client: Client, mib: number, { memory, stall }: { memory?: () => Promise<number>; stall?: Stall } = {}) {
  const streamedBefore = stall ? await stall.originStreamed() : 0;
  const rss: number[] = memory ? [await memory()] : [];
  let sampling: Promise<unknown> = Promise.resolve();
  const sample = async () => void rss.push(await memory!());
  const timer = memory && setInterval(() => void (sampling = sampling.then(sample).catch(() => undefined)), MEMORY_EVERY_MS);
  const expected = mib * MIB;
  let received = 0;
  let status: number;
  let inFlight: number | undefined;
  let inKernel: number | undefined;
  const started = performance.now();
  try {
    const { statusCode, body } = await client.request({ path: `/download?mb=${mib}`, method: 'GET' });
    status = statusCode;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (stall && inFlight === undefined && received >= STALL_AFTER_MIB * MIB) {
        await sleep(STALL_MS);
        inKernel = stall.kernelQueued();
        inFlight = (await stall.originStreamed()) - streamedBefore - received;
      }
    }
  } finally {
    if (timer) clearInterval(timer);
  }
  const seconds = (performance.now() - started) / 1000;
  await sampling;
  if (memory) rss.push(await memory());
  if (status !== 200 || received !== expected) throw new Error(`download of ${mib} MiB: status ${status}, ${received} of ${expected} bytes`);
  return {
    expectedBytes: expected,
    receivedBytes: received,
    mibPerSecond: round(received / MIB / seconds, 1),
    ...(stall ? { stallMs: STALL_MS, inFlightAtStallEndBytes: inFlight, inKernelAtStallEndBytes: inKernel } : {}),
    gatewayRss: { start: rss[0], max: Math.max(...rss), growth: Math.max(...rss) - rss[0], samples: rss.length },
  };
}
// ---------------------------------------------------------------- the child processes

/** The origin: plain Node http, keep-alive; a fixed page at once (`/`) or after a dynamic page's CPU work (`/page`), and a generated download. */
async function runOrigin(): Promise<void> {
  const page = Buffer.alloc(1024, 'origin page. ');
  const chunk = Buffer.alloc(64 * 1024, 0x62);
  // `calibrate` sets it before any page is asked for.
  let workRounds = 1;
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://origin');
    if (request.method === 'GET' && (url.pathname === '/' || url.pathname === '/page')) {
      if (url.pathname === '/page') pageWork(workRounds, page);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': page.length });
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
    response.writeHead(404, { 'content-length': 0 }).end();
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  serveRequests({ url: `http://127.0.0.1:${port}`, pid: process.pid } satisfies Ready, {
    cpu: (): NodeJS.CpuUsage => process.cpuUsage(),
    streamed: () => streamedBytes,
    calibrate: (micros: number) => (workRounds = calibrateWork(micros, page)),
    workRounds: (rounds: number) => (workRounds = rounds),
  });
}

/** A dynamic page's work (queries, templates) as a chain of SHA-256 over the page: fixed, so its CPU time a request holds whatever the load. */
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
          response.off('drain', done).off('close', done);
          resolve();
        };
        response.on('drain', done).on('close', done);
      });
    }
  }
  if (!gone) response.end();
}

if (require.main === module) {
  if (process.env.BENCH_GATEWAY_ROLE !== 'origin') {
    console.error('Started by bench/run.ts (BENCH_ONLY=gateway npm run bench), with BENCH_GATEWAY_ROLE=origin.');
    process.exit(1);
  }
  runOrigin().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
