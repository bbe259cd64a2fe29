/**
 * What the capacity runs share: their processes (our servers, the visitors' processes, the
 * pollers, each a child driven over IPC), a paced window (the page's polls while the release loop
 * releases, and what every release and `QueueMoved` fan-out took), and a closed loop in
 * alternating slices on two servers.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { NODE_FLAGS } from '../../server/process/node-flags';
import { cpuSeconds, distribution, preciseNow } from '../stats';
import type { PolledVisitor } from './http-client';
import { Child } from './ipc';
import type { PollArg, PollResult, SaturateArg, SaturateResult } from './poller';
import type { FanoutRecord, ServerReady, Taken } from './server';
import type { Deliveries, HoldArg, HoldResult, MoveShare } from './visitors';

/** The bench server's Node flags: production's, and `gc()` to read memory after a full collection. */
export const SERVER_EXEC_ARGV = ['--expose-gc', ...NODE_FLAGS];
/** Alternating slices per closed-loop run, half on each server, after one uncounted second on each. */
const SLICES = 8;
const SLICE_WARMUP_SECONDS = 1;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Our server's settings under test; `pageDir`: the built page (waiting.html and its assets). */
export type ServerSettings = { activeLimit: number; releasePerMinute: number; sessionSeconds: number; pageDir: string; redisUrl?: string };

export function serverEnv(options: ServerSettings, adminToken: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    PROTECT: '/checkout',
    ACTIVE_LIMIT: String(options.activeLimit),
    RELEASE_PER_MINUTE: String(options.releasePerMinute),
    SESSION_SECONDS: String(options.sessionSeconds),
    AWAY_SECONDS: '3600',
    ADMIN_TOKEN: adminToken,
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'warn',
    BENCH_PAGE_DIR: options.pageDir,
    // Each process of visitors connects from one loopback address: thousands of sockets each.
    REALTIME_MAX_CONNECTIONS_PER_ADDRESS: '10000000',
    REDIS_URL: options.redisUrl,
  };
  if (!options.redisUrl) delete env.REDIS_URL;
  for (const name of Object.keys(env)) if (name.startsWith('PUSHER_')) delete env[name];
  return env;
}

export type Admin = ReturnType<typeof adminClient>;

export function adminClient(url: string, token: string) {
  return async (method: string, route: string, body: unknown = {}): Promise<unknown> => {
    const response = await fetch(url + route, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      body: method === 'POST' ? JSON.stringify(body) : undefined,
    });
    if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
}

/** The sessions admitted before anyone waited must end first, or they take the release room. */
export async function untilNoneActive(admin: Admin, sessionSeconds: number): Promise<void> {
  const deadline = Date.now() + sessionSeconds * 1000 + 5000;
  while (((await admin('GET', '/admin/stats')) as { active: number }).active > 0) {
    if (Date.now() > deadline) throw new Error('admitted sessions did not end in time (SESSION_SECONDS)');
    await sleep(250);
  }
}

/**
 * One of our servers on `settings`' store with no origin behind it: nobody reaches the origin, so
 * every arrival is held, and a released one's replay goes nowhere. Its stdout (its log) is dropped.
 */
export async function serverWithoutOrigin(name: string, settings: ServerSettings, execArgv = SERVER_EXEC_ARGV) {
  const adminToken = randomBytes(18).toString('base64url');
  const env = { ...serverEnv(settings, adminToken), UPSTREAM: 'http://127.0.0.1:9' };
  const server = await Child.start<ServerReady>(path.join(__dirname, 'server.ts'), { name, execArgv, env, quiet: true });
  return { server, admin: adminClient(server.ready.url, adminToken) };
}

/** This process's open-file limit, from /proc (undefined elsewhere): read, never raised. */
export function openFileLimit(): number | undefined {
  const line = existsSync('/proc/self/limits') ? /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] : undefined;
  return line === undefined ? undefined : line === 'unlimited' ? Infinity : Number(line);
}

/** The loopback address the `index`-th load-generator process sends from (127.0.0.2, .3, …): each has its own ports. */
const sourceAddress = (index: number) => `127.0.0.${2 + index}`;
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/** The child processes of one run, closed together. */
export class Rig {
  private readonly children: Child<unknown>[] = [];
  private nextAddress = 0;
  readonly adminToken = randomBytes(18).toString('base64url');

  async start<R>(file: string, name: string, options: { env?: NodeJS.ProcessEnv; execArgv?: string[]; sourceAddress?: boolean } = {}) {
    const env = { ...(options.env ?? process.env), ...(options.sourceAddress && { BENCH_SOURCE_ADDRESS: sourceAddress(this.nextAddress++) }) };
    const child = await Child.start<R>(path.join(__dirname, file), { name, env, execArgv: options.execArgv });
    this.children.push(child);
    return child;
  }

  /** `count` of our servers with these settings, paused (the line's pause: in Redis, every instance's). */
  async servers(count: number, settings: ServerSettings, env: NodeJS.ProcessEnv = {}) {
    const servers: Child<ServerReady>[] = [];
    const options = { env: { ...serverEnv(settings, this.adminToken), ...env }, execArgv: SERVER_EXEC_ARGV };
    for (let index = 1; index <= count; index++) servers.push(await this.start<ServerReady>('server.ts', `bench server ${index}`, options));
    const admin = adminClient(servers[0].ready.url, this.adminToken);
    await admin('POST', '/admin/pause');
    return { servers, admin };
  }

  /** `processes` visitors' processes, each spreading its visitors over `servers` in turn. */
  async visitors(processes: number, servers: readonly Child<ServerReady>[]) {
    const targets = servers.map((server) => server.ready.url).join(',');
    // Each process's held addresses differ from the others'.
    const env = (index: number) => ({ ...process.env, BENCH_TARGETS: targets, BENCH_INDEX_BASE: String(index * 1_000_000) });
    const children = await Promise.all(
      Array.from({ length: processes }, (_, i) => this.start(`visitors.ts`, `visitors ${i + 1}`, { env: env(i), sourceAddress: true })),
    );
    return new VisitorGroup(children);
  }

  /** `count` pollers; a released visitor's polling stops when its socket hears the release. */
  async pollers(count: number, visitors?: VisitorGroup) {
    const pollers: Child<unknown>[] = [];
    for (let index = 0; index < count; index++) pollers.push(await this.start('poller.ts', `poller ${index + 1}`, { sourceAddress: true }));
    for (const child of visitors?.children ?? [])
      child.on('released', (uuid) => pollers.forEach((poller) => void poller.request('released', uuid).catch(() => undefined)));
    return pollers;
  }

  async close(): Promise<void> {
    for (const child of this.children.reverse()) {
      // A child that already exited has nothing to close.
      await Promise.race([child.request('close').catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5000))]);
      await child.stop();
    }
  }
}

/** The visitors' processes driven as one, each holding and reading its share of the sockets. */
export class VisitorGroup {
  constructor(readonly children: readonly Child<unknown>[]) {}

  private all<T>(cmd: string, arg: (index: number) => unknown = () => undefined): Promise<T[]> {
    return Promise.all(this.children.map((child, index) => child.request<T>(cmd, arg(index))));
  }

  /** Holds `more` visitors, each process its share, `concurrency` arriving at a time in all. */
  async hold(more: number, { realtime = true, concurrency = 64 } = {}) {
    const count = this.children.length;
    const maxErrors = Math.ceil(Math.max(10, more / 100) / count);
    const share = (index: number): HoldArg => ({
      more: Math.floor(more / count) + (index < more % count ? 1 : 0),
      concurrency: Math.ceil(concurrency / count),
      maxErrors,
      realtime,
    });
    const results = await this.all<HoldResult>('hold', share);
    const errors = Object.assign({}, ...results.map((result) => result.errors)) as HoldResult['errors'];
    return { held: sum(results.map((result) => result.held)), errors, errorCount: sum(results.map((result) => result.errorCount)) };
  }

  /** The visitors still waiting, for the pollers. */
  async waiting(): Promise<PolledVisitor[]> {
    return (await this.all<PolledVisitor[]>('visitors')).flat();
  }

  /** Every release frame read so far, the lives' errors, and the processes' longest event-loop delay since the last call. */
  async deliveries() {
    const shares = await this.all<Deliveries>('deliveries');
    return {
      received: new Map(shares.flatMap((share) => share.received)),
      errors: Object.assign({}, ...shares.map((share) => share.errors)) as Deliveries['errors'],
      errorCount: sum(shares.map((share) => share.errorCount)),
      loopDelayMaxMs: Math.max(...shares.map((share) => share.loopDelayMaxMs)),
    };
  }

  /** The `QueueMoved` frames read of `batches` (see `visitors.ts`); each process forgets what it counted. */
  async moves(batches: readonly [number, number][], countedFrom: number) {
    const shares = await this.all<MoveShare>('moves', () => ({ batches, countedFrom }));
    const perBatch = new Map<number, number>();
    for (const [served, sockets] of shares.flatMap((share) => share.perBatch)) perBatch.set(served, (perBatch.get(served) ?? 0) + sockets);
    return {
      batches: perBatch.size,
      framesPerBatch: distribution([...perBatch.values()]),
      missedByWaiting: sum(shares.map((share) => share.missedByWaiting)),
      latencyMs: distribution(shares.flatMap((share) => share.latencies)),
    };
  }

  async lagging(served: number): Promise<number> {
    return sum(await this.all<number>('lagging', () => served));
  }
}

/** The processes one paced window drives. */
export type Paced = { servers: readonly Child<ServerReady>[]; visitors: VisitorGroup; pollers: readonly Child<unknown>[]; admin: Admin };

/**
 * The page's polls (split among the pollers) while the loop releases; then each release decided against its frame read (every one must
 * arrive; the latency skips the warm-up), each `QueueMoved` batch at every socket, each fan-out's own account, the polls one overlapped.
 */
export async function pacedWindow({ servers, visitors, pollers, admin }: Paced, arg: PollArg) {
  const everyone = await visitors.waiting();
  const share = (index: number) => everyone.filter((_, at) => at % pollers.length === index);
  await Promise.all(pollers.map((poller, index) => poller.request('visitors', share(index))));
  // Forget what came before: each of these answers what happened since its last call.
  await Promise.all(servers.map((server) => server.request('take')));
  await visitors.deliveries();
  await visitors.moves([], 0);
  const cpuBefore = await Promise.all(servers.map((server) => server.request<NodeJS.CpuUsage>('cpu')));
  const from = preciseNow();
  await admin('POST', '/admin/resume');
  const polls = await Promise.all(pollers.map((poller) => poller.request<PollResult>('poll', arg)));
  await admin('POST', '/admin/pause');
  const until = preciseNow();
  const taken = await Promise.all(servers.map((server) => server.request<Taken>('take')));
  const cpu = await Promise.all(
    servers.map(async (server, index) => cpuSeconds(cpuBefore[index], await server.request<NodeJS.CpuUsage>('cpu')) / ((until - from) / 1000)),
  );
  const countedFrom = Math.max(...polls.map((poll) => poll.countedFrom));
  const inWindow = <T extends [unknown, number]>(list: T[]) => list.filter(([, at]) => at >= Math.floor(from) && at <= until);

  // Frames still on their way get a few seconds; a release left without one then is not delivered.
  const decided = inWindow(taken.flatMap((server) => server.releases));
  const lives = await visitors.deliveries();
  let { received } = lives;
  for (const deadline = Date.now() + 3000; decided.some(([uuid]) => !received.has(uuid)) && Date.now() < deadline;) {
    await sleep(100);
    ({ received } = await visitors.deliveries());
  }
  const delivered = decided.filter(([uuid]) => received.has(uuid));
  const counted = delivered.filter(([, at]) => at >= countedFrom).map(([uuid, at]) => received.get(uuid)! - at);

  // The last move follows its batch's releases.
  const batches = inWindow(taken.flatMap((server) => server.moves));
  const latest = batches.reduce((top, [served]) => Math.max(top, served), 0);
  for (const deadline = Date.now() + 5000; (await visitors.lagging(latest)) > 0 && Date.now() < deadline;) await sleep(100);
  const moves = await visitors.moves(batches, countedFrom);

  const timeline = polls.flatMap((poll) => poll.timeline);
  const latencies = timeline.map(([, ms]) => ms);
  const errorCount = sum(polls.map((poll) => poll.errorCount));
  const fanouts = taken.map((server) => server.fanouts);
  return {
    polls: {
      answered: latencies.length,
      perSecond: sum(polls.map((poll) => poll.perSecond)),
      latencyMs: distribution(latencies),
      errors: Object.assign({}, ...polls.map((poll) => poll.errors)) as PollResult['errors'],
      errorCount,
    },
    servers: taken.map(({ fanouts: _fanouts, releases: _releases, moves: _moves, ...loop }, index) => ({ cpu: cpu[index], ...loop })),
    releases: { released: counted.length, notDelivered: decided.length - delivered.length, latencyMs: distribution(counted) },
    moves,
    fanout: fanoutFigures(fanouts, batches, countedFrom, timeline),
    errors: { polls: errorCount, releasesNotDelivered: decided.length - delivered.length, queueMovedMissed: moves.missedByWaiting },
    lives: { errors: lives.errors, errorCount: lives.errorCount, loopDelayMaxMs: lives.loopDelayMaxMs },
  };
}

/**
 * The servers' own account of each counted `QueueMoved` fan-out, and the queue_info answers one
 * overlapped. A server may stop a move a newer one made pointless: a batch has reached an
 * instance's sockets when the first move carrying its `served` or more that was not stopped has
 * been written to all of them, and every socket when that holds on every instance.
 */
function fanoutFigures(instances: readonly FanoutRecord[][], batches: readonly [number, number][], countedFrom: number, polls: readonly [number, number][]) {
  const moves = instances.map((records) => records.filter(([kind]) => kind === 'moved'));
  const lastWrite: number[] = [];
  for (const [served, decidedAt] of batches) {
    if (decidedAt < countedFrom) continue;
    const done = moves.map((records) => records.filter((record) => (record[1] as number) >= served && !record[6]).map((record) => record[3]));
    if (done.every((ends) => ends.length > 0)) lastWrite.push(Math.max(...done.map((ends) => Math.min(...ends))) - decidedAt);
  }
  const counted = moves.flat().filter((record) => record[3] >= countedFrom);
  const whole = counted.filter((record) => !record[6] && record[4] > 0);
  const during = polls.filter(([sentAt, ms]) => counted.some((record) => sentAt <= record[3] && sentAt + ms >= record[2]));
  return {
    /** Release decision → the servers' last socket written with a move carrying it, one value a batch. */
    lastWriteMs: distribution(lastWrite),
    moves: counted.length,
    superseded: counted.length - whole.length,
    /** The fan-out's own writing time per socket, to set beside the platform's floor (`bare-fanout.ts`). */
    microsPerSocket: distribution(whole.map((record) => (record[5] * 1000) / record[4])),
    queueInfoDuringMs: distribution(during.map(([, ms]) => ms)),
  };
}

export type PacedFigures = Awaited<ReturnType<typeof pacedWindow>>;

/** A paced window in one line, for the run's log. */
export function summary({ polls, releases, moves, fanout, servers, errors }: PacedFigures): string {
  const most = (pick: (server: PacedFigures['servers'][number]) => number) => Math.max(...servers.map(pick)).toFixed(1);
  return (
    `${sum(Object.values(errors))} polling or delivery errors; queue_info ${polls.perSecond.toFixed(0)}/s p99 ${polls.latencyMs.p99} ms (during fan-outs ${fanout.queueInfoDuringMs.p99} ms); ` +
    `release p99 ${releases.latencyMs.p99} ms; QueueMoved to ${moves.framesPerBatch.p50} sockets read p99 ${moves.latencyMs.p99} ms (last written p99 ${fanout.lastWriteMs.p99} ms); ` +
    `server CPU ${servers.map((server) => `${(server.cpu * 100).toFixed(0)}%`).join(' ')}, loop held ${most((server) => server.loopDelayMaxMs)} ms ` +
    `(own work ${most((server) => server.longestOwnHoldMs)} ms), GC pause max ${most((server) => server.gcPauseMaxMs)} ms`
  );
}

/**
 * Closed-loop runs on two servers in alternating slices (ABBA…, BAAB… the next run: a drift in the load cancels out), with each
 * server's CPU time over a run (idle outside its slices and the warm-up), and the store's (Redis's) when asked.
 */
export async function closedLoop(
  poller: Child<unknown>,
  servers: Record<string, Child<ServerReady>>,
  runs: readonly number[],
  { connections, seconds, storeCpu }: { connections: number; seconds: number; storeCpu?: () => Promise<number> },
) {
  const names = Object.keys(servers);
  const urls = Object.fromEntries(names.map((name) => [name, servers[name].ready.url]));
  const cpu = () => Promise.all(names.map((name) => servers[name].request<NodeJS.CpuUsage>('cpu')));
  const results = [];
  for (const run of runs) {
    const [first, second] = run % 2 === 0 ? names : [...names].reverse();
    const order = Array.from({ length: SLICES }, (_, index) => (index % 4 === 0 || index % 4 === 3 ? first : second));
    const [cpuBefore, storeBefore] = [await cpu(), await storeCpu?.()];
    const arg: SaturateArg = { urls, order, connections, sliceSeconds: (2 * seconds) / SLICES, warmupSeconds: SLICE_WARMUP_SECONDS };
    const result = await poller.request<Record<string, SaturateResult>>('saturate', arg);
    const [cpuAfter, storeAfter] = [await cpu(), await storeCpu?.()];
    const byName = Object.fromEntries(names.map((name, index) => [name, { ...result[name], serverCpuSeconds: cpuSeconds(cpuBefore[index], cpuAfter[index]) }]));
    const storeCpuSeconds = storeBefore === undefined ? undefined : storeAfter! - storeBefore;
    results.push({ run, order, busySeconds: seconds + SLICE_WARMUP_SECONDS, byName, storeCpuSeconds });
  }
  return results;
}
