/**
 * Writes docs/capacity.md's sizing table between its markers (`node --import tsx bench/sizing.ts`),
 * from what one visitor costs: an arrival and a release (bench/results/arrivals.json), a poll, a
 * mark, a socket's memory and a move's write (bench/results/latest.json), and the rates the page's
 * specification sets. `spec/docs/capacity-figures.spec.ts` fails while the page and this differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AWAY_SECONDS_DEFAULT } from '../server/config/variable';
import { seenSpacing } from '../server/store/redis/seen-marks';
import type { ArrivalsResult } from './arrivals';
import { withFigures } from './performance-figures';

export const SIZING_START =
  '<!-- sizing: written by `node --import tsx bench/sizing.ts` from bench/results/arrivals.json and latest.json; do not edit by hand -->';
export const SIZING_END = '<!-- end of sizing -->';

type Redis = { readonly perSecond: number; readonly serverCpuMicrosPerRequest: number; readonly storeCpuMicrosPerRequest: number };
type Settled = { readonly perVisitorBytes: { readonly rss: number }; readonly baseline: { readonly rss: number } };
/** What is read of bench/results/latest.json: the Redis store's figures. */
export interface LatestResults {
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string };
  readonly storeComparison: { readonly settings: { readonly visitors: number }; readonly median: { readonly redis: Redis } };
  readonly capacityRedis: { readonly fanout: { readonly median: { readonly microsPerSocketP50: number } }; readonly memory: { readonly settled: Settled } };
}

/** bench/results/arrivals.json. */
export type ArrivalsResults = { readonly date: string; readonly arrivals: ArrivalsResult };

/** The rooms sized. */
export const SIZES = [100_000, 1_000_000, 10_000_000];
/** The page's polls a second, anonymous visitors: every 5 s, and every 60 s for everyone (the specification's timing). */
const POLLS_PER_SECOND = 1 / 5 + 1 / 60;
/**
 * Marks of seen a place a second: a gateway marks a place it answers at most once a spacing of
 * the away time (`SeenMarks`), AWAY_SECONDS' default here; assumed: a visitor's polls reach one
 * gateway process (its connection kept alive), else each process that answers it marks it.
 */
const MARKS_PER_SECOND = Math.min(POLLS_PER_SECOND, 1000 / seenSpacing(AWAY_SECONDS_DEFAULT * 1000));
/** Assumed: the crowd arrives over the first five minutes of the opening. */
const OPENING_SECONDS = 300;
/** Assumed: the line is released within an hour. */
const DRAIN_SECONDS = 3600;
/** Sockets a gateway process holds: under its 20,000 open files, room left for Redis, the origin and its files. */
const SOCKETS_PER_PROCESS = 19_000;
/** The share of a core a gateway process or a Redis shard is planned at: room for bursts and a lost sibling's visitors. */
const PLANNED_CORE = 0.5;
/**
 * Each gateway's copy of the line, bytes a place: the largest of `BENCH_ONLY=million`'s three sizes
 * (docs/performance.md, "A million in one room"), whose results file git does not keep.
 */
const LINE_COPY_BYTES_PER_PLACE = 136;
/** A `QueueMoved` frame as written to each socket: WebSocket header and its JSON. */
const MOVE_FRAME_BYTES = 2 + JSON.stringify({ event: 'QueueMoved', channel: 'App.Queue', data: '{"served":1234567}' }).length;
/** TCP/IP and Ethernet headers of the one packet a move is on the wire (14 + 20 + 32 with timestamps). */
const PACKET_BYTES = 66;

/** What one visitor costs, read from the results. */
export function perVisitorCosts(latest: LatestResults, arrivals: ArrivalsResults) {
  const redis = latest.storeComparison.median.redis;
  const pollsPerPlaceInRun = redis.perSecond / latest.storeComparison.settings.visitors;
  return {
    arrivalCpuMicros: arrivals.arrivals.gatewayCpuMicros,
    // A process of the table takes tens of arrivals a second, each its own script call, into a Redis
    // all of them keep busy: the bench's arrivals one a call from many stores, and each copy's reads of
    // their log as Redis times the command (at a fixed rate, Redis's whole CPU with and without the
    // copies differs by less than its noise: docs/performance.md).
    arrivalRedisMicros: arrivals.arrivals.oneACall.redisCpuMicros,
    batchedArrivalRedisMicros: arrivals.arrivals.redisCpuMicros,
    releaseCpuMicros: arrivals.arrivals.releases.gatewayCpuMicros,
    releaseRedisMicros: arrivals.arrivals.releases.redisCpuMicros,
    copyRedisMicros: arrivals.arrivals.copies.logReadMicros,
    copyBytes: arrivals.arrivals.copies.redisOutBytes,
    pageBytes: arrivals.arrivals.pageBytes,
    redisBytesPerPlace: arrivals.arrivals.redisBytesPerPlace,
    pollCpuMicros: redis.serverCpuMicrosPerRequest,
    // The side-by-side run polled each place several times a second, which Redis marked once: its CPU a poll × polls a place a second.
    markRedisMicros: redis.storeCpuMicrosPerRequest * Math.max(1, pollsPerPlaceInRun),
    moveCpuMicrosPerSocket: latest.capacityRedis.fanout.median.microsPerSocketP50,
    socketBytes: latest.capacityRedis.memory.settled.perVisitorBytes.rss,
    processBaseBytes: latest.capacityRedis.memory.settled.baseline.rss,
  };
}

export type Costs = ReturnType<typeof perVisitorCosts>;

/** One room of `visitors`, sized. */
export function sizeRoom(visitors: number, costs: Costs) {
  const arrivalsPerSecond = visitors / OPENING_SECONDS;
  const releasesPerSecond = visitors / DRAIN_SECONDS;
  const pollsPerSecond = visitors * POLLS_PER_SECOND;
  const cores = {
    arrivals: (arrivalsPerSecond * costs.arrivalCpuMicros) / 1e6,
    polls: (pollsPerSecond * costs.pollCpuMicros) / 1e6,
    moves: (visitors * costs.moveCpuMicrosPerSocket) / 1e6,
    releases: (releasesPerSecond * costs.releaseCpuMicros) / 1e6,
  };
  const gatewayCores = cores.arrivals + cores.polls + cores.moves + cores.releases;
  const bySockets = Math.ceil(visitors / SOCKETS_PER_PROCESS);
  const byCpu = Math.ceil(gatewayCores / PLANNED_CORE);
  const processes = Math.max(bySockets, byCpu);
  const socketsPerProcess = Math.ceil(visitors / processes);
  const processBytes = costs.processBaseBytes + socketsPerProcess * costs.socketBytes + visitors * LINE_COPY_BYTES_PER_PLACE;
  const marksPerSecond = visitors * MARKS_PER_SECOND;
  const redis = {
    arrivals: (arrivalsPerSecond * costs.arrivalRedisMicros) / 1e6,
    marks: (marksPerSecond * costs.markRedisMicros) / 1e6,
    releases: (releasesPerSecond * costs.releaseRedisMicros) / 1e6,
    // Every change of the opening read by every process's copy of the line.
    copies: (arrivalsPerSecond * processes * costs.copyRedisMicros) / 1e6,
  };
  const redisCores = redis.arrivals + redis.marks + redis.releases + redis.copies;
  const redisShards = Math.ceil(redisCores / PLANNED_CORE);
  return {
    visitors,
    arrivalsPerSecond,
    gatewayCores,
    cores,
    processes,
    processesBy: bySockets >= byCpu ? 'sockets' : 'CPU',
    socketsPerProcess,
    processBytes,
    redisBytes: visitors * costs.redisBytesPerPlace,
    redis,
    redisCores,
    redisShards,
    copyBytesPerSecond: arrivalsPerSecond * processes * costs.copyBytes,
    moveBytesPerSecond: visitors * (MOVE_FRAME_BYTES + PACKET_BYTES),
    arrivalBytesPerSecond: arrivalsPerSecond * costs.pageBytes,
  };
}

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const fixed = (value: number, digits = 1) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const bytes = (value: number) => (value >= 2 ** 30 ? `${fixed(value / 2 ** 30)} GiB` : `${fixed(value / 2 ** 20, 0)} MiB`);
const rate = (bytesPerSecond: number) => `${fixed((bytesPerSecond * 8) / 1e9, 2)} Gbit/s`;

/** The Markdown between the markers. */
export function sizingMarkdown(latest: LatestResults, arrivals: ArrivalsResults): string {
  const costs = perVisitorCosts(latest, arrivals);
  const rooms = SIZES.map((visitors) => sizeRoom(visitors, costs));
  const row = (label: string, cell: (room: ReturnType<typeof sizeRoom>) => string) => `| ${label} | ${rooms.map(cell).join(' | ')} |`;
  const shards = (room: ReturnType<typeof sizeRoom>) => {
    const parts = `(${[room.redis.arrivals, room.redis.marks, room.redis.releases, room.redis.copies].map((value) => fixed(value, 2)).join(' + ')})`;
    return room.redisShards <= 1
      ? `1: ${fixed(room.redisCores * 100, 0)} % of its core ${parts}`
      : `**${fixed(room.redisCores, 1)} cores of work ${parts}, ${room.redisShards} shards at ${PLANNED_CORE * 100} %: one room is one shard today**`;
  };
  return [
    `From bench/results/arrivals.json (${arrivals.date.slice(0, 16).replace('T', ' ')} UTC, \`BENCH_ONLY=arrivals\`) and bench/results/latest.json ` +
      `(${latest.date.slice(0, 16).replace('T', ' ')} UTC, the Redis store), on ${latest.machine.cpus} cores (${latest.machine.cpuModel}).`,
    '',
    '| cost of one visitor, measured | gateway CPU | Redis CPU | bytes |',
    '| --- | --- | --- | --- |',
    `| a held arrival (the waiting page, ${count(costs.pageBytes)} bytes) | ${fixed(costs.arrivalCpuMicros)} µs | ${fixed(costs.arrivalRedisMicros)} µs, one a call on a busy Redis (${fixed(costs.batchedArrivalRedisMicros)} µs in a busy gateway's batches) | Redis ${count(costs.redisBytesPerPlace)} B a place |`,
    `| a poll (queue_info from the gateway's copy of the line) | ${fixed(costs.pollCpuMicros)} µs | | copy ${LINE_COPY_BYTES_PER_PLACE} B a place, in every gateway |`,
    `| a mark of seen (one a place every ${seenSpacing(AWAY_SECONDS_DEFAULT * 1000) / 1000} s at most) | | ${fixed(costs.markRedisMicros)} µs | |`,
    `| a move written to one socket | ${fixed(costs.moveCpuMicrosPerSocket)} µs | | ${MOVE_FRAME_BYTES} B (${MOVE_FRAME_BYTES + PACKET_BYTES} B with its packet's headers) |`,
    `| a release | ${fixed(costs.releaseCpuMicros)} µs | ${fixed(costs.releaseRedisMicros)} µs | |`,
    `| an arrival's change read by one gateway process's copy of the line | | ${fixed(costs.copyRedisMicros, 2)} µs | ${count(costs.copyBytes)} B out of Redis |`,
    `| a waiting socket (RSS after GC, settled) | | | ${count(costs.socketBytes)} B |`,
    '',
    `Rates: a visitor polls ${fixed(POLLS_PER_SECOND, 3)} times a second (every 5 s, and every 60 s, the page's specification) and Redis hears of it ${fixed(MARKS_PER_SECOND, 3)} times a second (each gateway marks a place it answers once in ${seenSpacing(AWAY_SECONDS_DEFAULT * 1000) / 1000} to ${(2 * seenSpacing(AWAY_SECONDS_DEFAULT * 1000)) / 1000} s, with \`AWAY_SECONDS\` at its default; a visitor's polls taken to reach one process), one move a second reaches every waiting socket, ` +
      `the crowd arrives over the first ${OPENING_SECONDS / 60} minutes and is released within ${DRAIN_SECONDS / 3600} hour; ` +
      `a gateway process holds at most ${count(SOCKETS_PER_PROCESS)} sockets (its open files: 20,000), and a process or a Redis shard is planned at ${PLANNED_CORE * 100} % of a core.`,
    '',
    `| one room of | ${rooms.map((room) => count(room.visitors)).join(' | ')} |`,
    `| --- | ${rooms.map(() => '---').join(' | ')} |`,
    row('arrivals a second at the opening', (room) => count(room.arrivalsPerSecond)),
    row(
      'gateway CPU: arrivals + polls + moves + releases (cores)',
      (room) =>
        `${fixed(room.gatewayCores)} (${[room.cores.arrivals, room.cores.polls, room.cores.moves, room.cores.releases].map((value) => fixed(value)).join(' + ')})`,
    ),
    row('gateway processes (one a core), and the bound that decides', (room) => `${count(room.processes)} (${room.processesBy})`),
    row('sockets a process', (room) => count(room.socketsPerProcess)),
    row('memory a process (its sockets and its copy of the whole line)', (room) => bytes(room.processBytes)),
    row('gateway memory in all', (room) => bytes(room.processBytes * room.processes)),
    row('Redis memory (the line)', (room) => bytes(room.redisBytes)),
    row('Redis for the room: arrivals + marks + releases + the log to every copy (cores)', shards),
    row("the log to every process's copy at the opening, out of Redis", (room) => rate(room.copyBytesPerSecond)),
    row('the moves on the wire, one a second to every socket', (room) => rate(room.moveBytesPerSecond)),
    row('the waiting pages on the wire at the opening', (room) => rate(room.arrivalBytesPerSecond)),
    '',
  ].join('\n');
}

export function writeSizing(root = path.resolve(__dirname, '..')): void {
  const read = <T>(file: string) => JSON.parse(readFileSync(path.join(root, 'bench/results', file), 'utf8')) as T;
  const file = path.join(root, 'docs/capacity.md');
  const page = readFileSync(file, 'utf8');
  writeFileSync(
    file,
    withFigures(page, sizingMarkdown(read<LatestResults>('latest.json'), read<ArrivalsResults>('arrivals.json')), [SIZING_START, SIZING_END]),
  );
  console.log('docs/capacity.md: sizing written from bench/results/arrivals.json and latest.json.');
}

if (require.main === module) writeSizing();
