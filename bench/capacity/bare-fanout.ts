/**
 * The platform's floor for a fan-out: one small frame written to each of N loopback TCP sockets
 * by a bare Node `net` server, one `socket.write` each in a plain loop, while another process
 * holds the other ends and reads them. What that costs a socket, in wall time and in CPU time, is
 * what no server on this machine can go below; the server's own fan-out is compared with it.
 *
 * As a benchmark child: `measure` {sockets, rounds} → the medians over the rounds. Started with
 * BENCH_FANOUT_CLIENT=host:port, it is the reading end instead.
 */
import { fork } from 'node:child_process';
import net from 'node:net';
import { median } from '../stats';
import { serveRequests } from './ipc';

/** A QueueMoved frame as the server writes it: a two-byte header and its JSON. */
const PAYLOAD = Buffer.from(JSON.stringify({ event: 'QueueMoved', channel: 'App.Queue', data: '{"served":123456}' }));
const FRAME = Buffer.concat([Buffer.from([0x81, PAYLOAD.length]), PAYLOAD]);

/** How long the accepting may stall before the floor is measured on the sockets accepted so far. */
const ACCEPT_STALL_MS = 3000;

interface MeasureArg {
  readonly sockets: number;
  readonly rounds: number;
}

async function measure({ sockets, rounds }: MeasureArg) {
  const accepted: net.Socket[] = [];
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    accepted.push(socket);
  });
  // A backlog as deep as the kernel allows: past Node's default (511), connections opened in a
  // burst overflow the accept queue and stay half-open at the reading end, never accepted here.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
  const { port } = server.address() as net.AddressInfo;
  const client = fork(__filename, [], {
    env: { ...process.env, BENCH_FANOUT_CLIENT: `127.0.0.1:${port}`, BENCH_FANOUT_SOCKETS: String(sockets) },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    // Every socket, or as many as were accepted once none has come for a while (a connection the
    // kernel dropped is never retried): the floor is a figure per socket, and says how many.
    let lastCount = 0;
    let lastChange = performance.now();
    while (accepted.length < sockets && performance.now() - lastChange < ACCEPT_STALL_MS) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (accepted.length !== lastCount) [lastCount, lastChange] = [accepted.length, performance.now()];
    }
    if (accepted.length === 0) throw new Error('the reading end opened no socket');
    const wallMicros: number[] = [];
    const cpuMicros: number[] = [];
    for (let round = 0; round < rounds; round++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      for (const socket of accepted) socket.write(FRAME);
      const wall = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      wallMicros.push((wall * 1000) / accepted.length);
      cpuMicros.push((cpu.user + cpu.system) / accepted.length);
    }
    const round = (value: number) => Math.round(value * 100) / 100;
    return { sockets: accepted.length, rounds, microsPerSocketWall: round(median(wallMicros)), microsPerSocketCpu: round(median(cpuMicros)) };
  } finally {
    client.kill();
    for (const socket of accepted) socket.destroy();
    server.close();
  }
}

export type FanoutFloor = Awaited<ReturnType<typeof measure>>;

/** The reading end: opens the sockets and reads whatever comes. */
async function readingEnd(target: string, count: number): Promise<void> {
  const [host, port] = target.split(':');
  for (let opened = 0; opened < count; opened++) {
    const socket = net.connect({ host, port: Number(port) });
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    if (opened % 500 === 499) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  process.on('disconnect', () => process.exit(0));
}

if (process.env.BENCH_FANOUT_CLIENT) void readingEnd(process.env.BENCH_FANOUT_CLIENT, Number(process.env.BENCH_FANOUT_SOCKETS));
else serveRequests({ pid: process.pid }, { measure: (arg: MeasureArg) => measure(arg) });
