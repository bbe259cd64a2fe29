/**
 * The server capacity benchmark: our server, a bare Node `http` server and the load generator,
 * each in its own process. Holds N anonymous visitors at once, measures the server's memory per
 * waiting visitor, paced queue_info polling with releases under way (release-to-delivery
 * latency), then queue_info throughput in a closed loop against ours and the bare server.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { distribution, median } from '../stats';
import { Child } from './ipc';
import { localPortRange, openFileLimit } from './limits';
import type { Deliveries, HoldResult, PollResult, SaturateResult } from './load';
import type { CpuSample, MemorySample } from './protocol';

export interface CapacityOptions {
  readonly visitors: number;
  /** Time compression of the page's polls (5 s and 60 s divided by it). */
  readonly factor: number;
  readonly pollSeconds: number;
  readonly saturateSeconds: number;
  readonly repetitions: number;
  /** Keep-alive connections of the closed-loop phase (a proxy's pool in front of the server). */
  readonly connections: number;
  /** Keep-alive connections of the paced phase. */
  readonly pollSockets: number;
  readonly releasePerMinute: number;
  readonly activeLimit: number;
  readonly sessionSeconds: number;
  /** The built page (waiting.html and its assets). */
  readonly pageDir: string;
  readonly redisUrl?: string;
  /** Write a V8 CPU profile of the server into this folder. */
  readonly cpuProfileDir?: string;
  readonly log: (line: string) => void;
}

const round = (value: number) => Math.round(value * 100) / 100;

type Ready = { url: string; port: number; pid: number };

const here = __dirname;

/** Runs the whole capacity benchmark and returns its figures. */
export async function runCapacity(options: CapacityOptions) {
  const { log } = options;
  const limits = checkLimits(options);
  const adminToken = randomBytes(18).toString('base64url');
  const children: Child<unknown>[] = [];
  try {
    const bare = await Child.start<Ready>(path.join(here, 'bare-server.ts'), { name: 'bare server' });
    children.push(bare);
    const server = await Child.start<Ready>(path.join(here, 'server.ts'), {
      name: 'bench server',
      execArgv: ['--expose-gc', ...(options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [])],
      env: serverEnv(options, adminToken),
    });
    children.push(server);
    const admin = adminClient(server.ready.url, adminToken);
    // Nobody is released while visitors arrive: each must be subscribed before its release.
    await admin('POST', '/admin/pause');
    const baseline = await server.request<MemorySample>('memory');

    const load = await Child.start<{ pid: number }>(path.join(here, 'load.ts'), {
      name: 'load generator',
      env: { ...process.env, BENCH_TARGET: server.ready.url },
    });
    children.push(load);

    const half = Math.floor(options.visitors / 2);
    const holdArg = { concurrency: 64, maxErrors: Math.max(10, Math.ceil(options.visitors / 100)) };
    log(`  holding ${options.visitors} visitors…`);
    const holdHalf = await load.request<HoldResult>('hold', { ...holdArg, visitors: half });
    const memoryHalf = await server.request<MemorySample>('memory');
    const holdFull = await load.request<HoldResult>('hold', { ...holdArg, visitors: options.visitors });
    const memoryFull = await server.request<MemorySample>('memory');
    const stats = await admin('GET', '/admin/stats');
    log(`  held ${holdFull.held} (${(holdHalf.seconds + holdFull.seconds).toFixed(1)} s); server says ${JSON.stringify(stats)}`);

    // The sessions admitted before anyone waited must end first, or they take the release room.
    await untilNoneActive(admin, options.sessionSeconds * 1000 + 5000);

    log(`  paced polling for ${options.pollSeconds} s at ×${options.factor} with releases at ${options.releasePerMinute}/min…`);
    const cpuBeforePoll = await server.request<CpuSample>('cpu');
    await admin('POST', '/admin/resume');
    const paced = await load.request<PollResult>('poll', { seconds: options.pollSeconds, factor: options.factor, sockets: options.pollSockets });
    await admin('POST', '/admin/pause');
    const pacedServerCpu = cpuShare(cpuBeforePoll, await server.request<CpuSample>('cpu'), paced.seconds);
    const releases = await releaseLatency(server, load);
    log(`  queue_info paced: ${paced.perSecond.toFixed(0)}/s, p99 ${paced.latencyMs.p99} ms; releases ${releases.released}, delivery p99 ${releases.latencyMs.p99} ms`);

    const saturation: { bare: SaturateResult & { serverCpu: number }; ours: SaturateResult & { serverCpu: number }; ratio: number }[] = [];
    for (let run = 0; run < options.repetitions; run++) {
      // Alternate which goes first, so that neither always runs on a warmer machine.
      const order: ('bare' | 'ours')[] = run % 2 === 0 ? ['bare', 'ours'] : ['ours', 'bare'];
      const pair: Partial<Record<'bare' | 'ours', SaturateResult & { serverCpu: number }>> = {};
      for (const which of order) {
        const child = which === 'bare' ? bare : server;
        const before = await child.request<CpuSample>('cpu');
        const result = await load.request<SaturateResult>('saturate', {
          url: child.ready.url,
          connections: options.connections,
          seconds: options.saturateSeconds,
          warmupSeconds: 1,
        });
        const serverCpu = cpuShare(before, await child.request<CpuSample>('cpu'), options.saturateSeconds + 1);
        pair[which] = { ...result, serverCpu };
      }
      const ratio = pair.ours!.perSecond / pair.bare!.perSecond;
      saturation.push({ bare: pair.bare!, ours: pair.ours!, ratio });
      log(`  run ${run + 1}: bare ${pair.bare!.perSecond.toFixed(0)}/s, ours ${pair.ours!.perSecond.toFixed(0)}/s, ratio ${ratio.toFixed(2)}`);
    }
    const lives = await load.request<Deliveries>('deliveries');
    const memoryEnd = await server.request<MemorySample>('memory');

    const perVisitor = (from: MemorySample, to: MemorySample, count: number) => ({
      rss: (to.rss - from.rss) / count,
      heapUsed: (to.heapUsed - from.heapUsed) / count,
      external: (to.external + to.arrayBuffers - from.external - from.arrayBuffers) / count,
    });
    const held = holdFull.held;
    const errors = {
      hold: holdHalf.errorCount + holdFull.errorCount,
      visitorLives: lives.errorCount,
      pacedPolls: paced.errorCount + paced.unanswered,
      releasesNotDelivered: releases.notDelivered,
      saturation: saturation.reduce((sum, pair) => sum + pair.bare.errorCount + pair.ours.errorCount, 0),
    };
    const errorTotal = Object.values(errors).reduce((sum, count) => sum + count, 0);

    return {
      settings: {
        visitors: options.visitors,
        timeFactor: options.factor,
        pollSeconds: options.pollSeconds,
        saturateSeconds: options.saturateSeconds,
        repetitions: options.repetitions,
        connections: options.connections,
        pollSockets: options.pollSockets,
        releasePerMinute: options.releasePerMinute,
        activeLimit: options.activeLimit,
        sessionSeconds: options.sessionSeconds,
        store: options.redisUrl ? 'redis' : 'memory',
      },
      limits,
      hold: { half: holdHalf, full: holdFull, held, serverStats: stats },
      memory: {
        baseline,
        half: memoryHalf,
        full: memoryFull,
        end: memoryEnd,
        perVisitorBytes: perVisitor(baseline, memoryFull, held),
        perVisitorBytesSecondHalf: perVisitor(memoryHalf, memoryFull, held - holdHalf.held),
      },
      paced: { ...paced, serverCpu: pacedServerCpu },
      releases,
      saturation: {
        runs: saturation,
        median: {
          barePerSecond: median(saturation.map((pair) => pair.bare.perSecond)),
          oursPerSecond: median(saturation.map((pair) => pair.ours.perSecond)),
          ratio: median(saturation.map((pair) => pair.ratio)),
          oursP50Ms: round(median(saturation.map((pair) => pair.ours.latencyMs.p50))),
          oursP99Ms: round(median(saturation.map((pair) => pair.ours.latencyMs.p99))),
          bareP50Ms: round(median(saturation.map((pair) => pair.bare.latencyMs.p50))),
          bareP99Ms: round(median(saturation.map((pair) => pair.bare.latencyMs.p99))),
          oursServerCpu: median(saturation.map((pair) => pair.ours.serverCpu)),
          bareServerCpu: median(saturation.map((pair) => pair.bare.serverCpu)),
          generatorCpuOurs: median(saturation.map((pair) => pair.ours.generatorCpu)),
          generatorCpuBare: median(saturation.map((pair) => pair.bare.generatorCpu)),
        },
      },
      visitorLives: { ...lives, received: lives.received.length },
      errors: { ...errors, total: errorTotal },
    };
  } finally {
    await closeAll(children);
  }
}

export type CapacityResult = Awaited<ReturnType<typeof runCapacity>>;

/** Refuses to start when the open-file or port limits cannot hold the visitors; raises nothing. */
function checkLimits(options: CapacityOptions) {
  const files = openFileLimit();
  const ports = localPortRange();
  // Each process holds one socket per visitor plus its pools and its own files.
  const socketsPerProcess = options.visitors + Math.max(options.connections, options.pollSockets) + 64 + 200;
  if (files && socketsPerProcess > files.soft) {
    throw new Error(
      `BENCH_VISITORS=${options.visitors} needs about ${socketsPerProcess} open files per process, ` +
        `but the limit is ${files.soft} (ulimit -n). Lower BENCH_VISITORS or raise the limit yourself.`,
    );
  }
  const portCount = ports ? ports.high - ports.low + 1 : undefined;
  if (portCount !== undefined && socketsPerProcess > portCount) {
    throw new Error(`BENCH_VISITORS=${options.visitors} needs about ${socketsPerProcess} local ports; the range has ${portCount}.`);
  }
  return { openFiles: files, localPorts: ports, socketsPerProcess };
}

function serverEnv(options: CapacityOptions, adminToken: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    PROTECT: '/checkout',
    ACTIVE_LIMIT: String(options.activeLimit),
    RELEASE_PER_MINUTE: String(options.releasePerMinute),
    SESSION_SECONDS: String(options.sessionSeconds),
    ABANDON_SECONDS: '3600',
    ADMIN_TOKEN: adminToken,
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'warn',
    BENCH_PAGE_DIR: options.pageDir,
  };
  delete env.REDIS_URL;
  if (options.redisUrl) env.REDIS_URL = options.redisUrl;
  for (const name of Object.keys(env)) if (name.startsWith('PUSHER_')) delete env[name];
  return env;
}

function adminClient(url: string, token: string) {
  return async (method: string, route: string): Promise<unknown> => {
    const response = await fetch(url + route, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      body: method === 'POST' ? '{}' : undefined,
    });
    if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
}

async function untilNoneActive(admin: ReturnType<typeof adminClient>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (((await admin('GET', '/admin/stats')) as { active: number }).active > 0) {
    if (Date.now() > deadline) throw new Error('admitted sessions did not end in time (SESSION_SECONDS)');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The share of one core a process used between two samples. */
function cpuShare(before: CpuSample, after: CpuSample, seconds: number): number {
  return (after.user + after.system - before.user - before.system) / 1e6 / seconds;
}

/**
 * Joins the release decisions (recorded in the server's store) with the frames' arrival at the
 * visitors' sockets. Waits a little for frames still on their way; any release left without a
 * frame then counts as not delivered.
 */
async function releaseLatency(server: Child<unknown>, load: Child<unknown>) {
  const decided = new Map(await server.request<[string, number][]>('releases'));
  let lives = await load.request<Deliveries>('deliveries');
  const deadline = Date.now() + 3000;
  while (lives.received.length < decided.size && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    lives = await load.request<Deliveries>('deliveries');
  }
  const received = new Map(lives.received);
  const latencies: number[] = [];
  let notDelivered = 0;
  for (const [uuid, at] of decided) {
    const arrived = received.get(uuid);
    if (arrived === undefined) notDelivered++;
    else latencies.push(arrived - at);
  }
  return {
    released: decided.size,
    delivered: latencies.length,
    notDelivered,
    latencyMs: distribution(latencies),
    from: "the store's release decision (the released entry's releasedAt, ms)",
    to: 'the RequestUnqueud frame arriving at the visitor socket in the load generator',
  };
}

async function closeAll(children: Child<unknown>[]): Promise<void> {
  for (const child of children.reverse()) {
    try {
      await Promise.race([child.request('close'), new Promise((resolve) => setTimeout(resolve, 5000))]);
    } catch {
      // A child that already exited has nothing to close.
    }
    await child.stop();
  }
}
