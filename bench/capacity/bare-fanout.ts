/**
 * The platform's floor for a fan-out: one QueueMoved-sized frame written to each of N loopback
 * sockets by a bare Node `net` server, one `socket.write` each in a plain loop, while another
 * process (this file with BENCH_FANOUT_CLIENT=host:port) holds the other ends and reads them.
 * `measure` {sockets, rounds} → the medians over the rounds, in wall and CPU time a socket.
 */
import { fork } from 'node:child_process';
import net from 'node:net';
import { median, round } from '../stats';
import { serveRequests } from './ipc';

const PAYLOAD = Buffer.from(JSON.stringify({ event: 'QueueMoved', channel: 'App.Queue', data: '{"served":123456}' }));
const FRAME = Buffer.concat([Buffer.from([0x81, PAYLOAD.length]), PAYLOAD]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function measure({ sockets, rounds }: { sockets: number; rounds: number }) {
  const accepted: net.Socket[] = [];
  const server = net.createServer((socket) => void accepted.push(socket.setNoDelay(true).on('error', () => undefined)));
  // Past Node's default backlog (511), connections opened in a burst overflow the accept queue.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
  const { port } = server.address() as net.AddressInfo;
  const env = { ...process.env, BENCH_FANOUT_CLIENT: `127.0.0.1:${port}`, BENCH_FANOUT_SOCKETS: String(sockets) };
  const client = fork(__filename, [], { env, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    // Every socket, or those accepted once none came for 3 s (the kernel never retries one it
    // dropped): the floor is per socket. The reading end may take a while to start on a busy machine.
    for (let [count, since] = [0, performance.now()]; accepted.length < sockets && performance.now() - since < (count === 0 ? 30_000 : 3000);) {
      await sleep(20);
      if (accepted.length !== count) [count, since] = [accepted.length, performance.now()];
    }
    if (accepted.length === 0) throw new Error('the reading end opened no socket');
    const wallMicros: number[] = [];
    const cpuMicros: number[] = [];
    for (let round = 0; round < rounds; round++) {
      await sleep(100);
      const [cpuBefore, started] = [process.cpuUsage(), performance.now()];
      for (const socket of accepted) socket.write(FRAME);
      wallMicros.push(((performance.now() - started) * 1000) / accepted.length);
      const cpu = process.cpuUsage(cpuBefore);
      cpuMicros.push((cpu.user + cpu.system) / accepted.length);
    }
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
  process.on('disconnect', () => process.exit(0));
  for (let opened = 0; opened < count; opened++) {
    net
      .connect({ host, port: Number(port) })
      .on('data', () => undefined)
      .on('error', () => undefined);
    if (opened % 500 === 499) await sleep(5);
  }
}

if (process.env.BENCH_FANOUT_CLIENT) void readingEnd(process.env.BENCH_FANOUT_CLIENT, Number(process.env.BENCH_FANOUT_SOCKETS));
else serveRequests({ pid: process.pid }, { measure });
