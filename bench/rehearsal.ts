/**
 * Rehearsal against reality: one crowd twice, through `waiting-room rehearse` (the server's law on
 * a virtual clock) and through the real server in a process of its own (`admission/gateway.ts`:
 * `start(loadConfig(env))`) with real visitors on this machine: each arrives as an API client (a
 * GET with `Accept: application/json`, held with a 503 and its place or let in), asks queue_info
 * once (the page's estimate), and listens on its own channel over the Pusher protocol until
 * `RequestUnqueud`. Real time, scaled down: the release rate is high enough to drain in about a
 * minute. Compared: waits p50 and p90 and the drain (from the first arrival to the last release).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Pool } from 'undici';
import { CHANNELS } from '@waiting-room/streams/contract';
import { arrivalTimes, parseCrowd } from '../bin/rehearse/crowd';
import { rehearse } from '../bin/rehearse/rehearse';
import { loadConfig } from '../server/process/config';
import { Child } from './capacity/ipc';
import { RealtimeSockets } from './realtime-sockets';
import { percentile, preciseNow } from './stats';

export interface RehearsalBenchOptions {
  readonly crowd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly pageDir: string;
  readonly log: (line: string) => void;
}

/** 1,000 at the opening, 2,000 more over 40 s; 40 released a second once the first sessions (10 s) end. */
export const REALITY_CROWD = '1000@open+ramp:2000/40s';
export const REALITY_ENV = {
  ROOMS: JSON.stringify([{ name: 'drop', protect: ['/drop'], activeLimit: 500, releasePerMinute: 2400 }]),
  SESSION_SECONDS: '10',
} as const;

/** The page's poll of queue_info while it waits. */
const POLL_MS = 5000;

interface Figures {
  readonly p50: number;
  readonly p90: number;
  readonly drain: number;
}

export async function measureRehearsal(options: RehearsalBenchOptions) {
  const { log } = options;
  const origin = createServer((_request, response) => response.end('ok'));
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  const env = {
    ...options.env,
    PORT: '0',
    HOST: '127.0.0.1',
    UPSTREAM: `http://127.0.0.1:${(origin.address() as AddressInfo).port}`,
    AWAY_SECONDS: '3600',
    LOG_LEVEL: 'warn',
    ADMIN_TOKEN: randomBytes(18).toString('base64url'),
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    REALTIME_MAX_CONNECTIONS_PER_ADDRESS: '100000',
    REALTIME_MAX_SUBSCRIPTIONS: '1000',
    // A socket carries hundreds of visitors' channels: their subscriptions come in a burst.
    REALTIME_MESSAGES_PER_SECOND: '10000',
  };
  const gateway = await Child.start<{ url: string; realtimeKey: string }>(path.join(__dirname, 'admission', 'gateway.ts'), {
    name: 'rehearsal bench server',
    env: { ...process.env, BENCH_PAGE_DIR: options.pageDir, BENCH_ADMISSION_ENV: JSON.stringify(env) },
  });
  try {
    const arrivals = arrivalTimes(parseCrowd(options.crowd));
    log(`  the real server: ${arrivals.length} visitors (${options.crowd})…`);
    const real = await realRun(gateway.ready, arrivals);
    const rehearsed = await rehearse({ config: loadConfig(env), crowd: parseCrowd(options.crowd), bots: 0, origin: {}, maxMs: 30 * 60_000 });
    if (!rehearsed.drain) throw new Error('the rehearsal did not drain');
    const simulated: Figures = { p50: rehearsed.waits.p50, p90: rehearsed.waits.p90, drain: rehearsed.drain.fromFirstArrival };
    const ratio = (key: keyof Figures) => round(simulated[key] / real.figures[key]);
    return {
      crowd: options.crowd,
      env: options.env,
      visitors: arrivals.length,
      real: real.figures,
      rehearsed: simulated,
      ratio: { p50: ratio('p50'), p90: ratio('p90'), drain: ratio('drain') },
      problems: real.problems,
      arrivalsLateMsP99: real.lateP99,
      estimate: { real: real.estimate, rehearsed: rehearsed.estimate.atArrival },
      rehearsedInSeconds: rehearsed.tookSeconds,
    };
  } finally {
    await gateway.stop();
    origin.close();
  }
}

export type RehearsalBenchResult = Awaited<ReturnType<typeof measureRehearsal>>;

/** The crowd against the real server: each visitor's wait (s), the drain and the estimate at arrival against the wait. */
async function realRun(server: { url: string; realtimeKey: string }, arrivals: Float64Array) {
  const pool = new Pool(server.url, { connections: 256 });
  const problems: string[] = [];
  const listening = new Map<string, (at: number) => void>();
  const onRelease = (channel: string) => listening.get(channel)?.(preciseNow());
  const sockets = await RealtimeSockets.open(server.url, server.realtimeKey, arrivals.length, onRelease, (what) => void problems.push(what));
  const waits: number[] = [];
  const late: number[] = [];
  const estimates: { estimated: number; waited: number }[] = [];
  let firstArrival = Number.POSITIVE_INFINITY;
  let lastRelease = 0;
  const visit = async (n: number, arrivedAt: number): Promise<void> => {
    firstArrival = Math.min(firstArrival, arrivedAt);
    const answer = await pool.request({ method: 'GET', path: `/drop/item/${n}`, headers: { accept: 'application/json' } });
    const body = await answer.body.text();
    if (answer.statusCode === 200) {
      waits.push(0);
      lastRelease = Math.max(lastRelease, preciseNow());
      return;
    }
    const uuid = (JSON.parse(body) as { queue?: { uuid?: string } }).queue?.uuid;
    if (answer.statusCode !== 503 || !uuid) throw new Error(`held without a place (${answer.statusCode})`);
    const channel = CHANNELS.client(uuid);
    let heard: (at: number) => void = () => {};
    const released = new Promise<number>((resolve) => (heard = resolve));
    listening.set(channel, heard);
    sockets.subscribe(channel);
    // The page's estimate, and its poll every 5 s: a release before the subscription took is read there.
    const poll = async () =>
      (await (await pool.request({ method: 'GET', path: `/queue/info/${uuid}` })).body.json()) as { position: number; estimated: number };
    const info = await poll();
    if (info.position === 0) heard(preciseNow());
    const polling = setInterval(() => {
      void poll().then(
        (again) => again.position === 0 && heard(preciseNow()),
        () => undefined,
      );
    }, POLL_MS);
    const at = await released;
    clearInterval(polling);
    listening.delete(channel);
    waits.push((at - arrivedAt) / 1000);
    lastRelease = Math.max(lastRelease, at);
    if (info.position > 0) estimates.push({ estimated: info.estimated, waited: (at - arrivedAt) / 60_000 });
  };
  const start = preciseNow() + 500;
  const visits: Promise<void>[] = [];
  for (let n = 0; n < arrivals.length; n++) {
    const due = start + arrivals[n] - arrivals[0];
    const wait = due - preciseNow();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const arrivedAt = preciseNow();
    late.push(arrivedAt - due);
    visits.push(visit(n, arrivedAt).catch((error: unknown) => void problems.push((error as Error).message)));
  }
  await Promise.all(visits);
  sockets.close();
  await pool.close();
  const errors = estimates.map(({ estimated, waited }) => estimated - waited);
  return {
    figures: { p50: round(percentile(waits, 50)), p90: round(percentile(waits, 90)), drain: round((lastRelease - firstArrival) / 1000) },
    problems: problems.slice(0, 5),
    lateP99: round(percentile(late, 99)),
    estimate:
      errors.length === 0
        ? null
        : {
            meanError: round(errors.reduce((sum, error) => sum + Math.abs(error), 0) / errors.length),
            bias: round(errors.reduce((sum, error) => sum + error, 0) / errors.length),
          },
  };
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * The page's estimate, measured by rehearsals: a line at a steady rate, a rate that halves (an
 * event from minute 10 sets half the room's rate; queue_info hands the estimate the rate in force),
 * an opening burst faster than the release times a store keeps cover, and a room paced by its
 * active limit with long sessions (the admitted free their places in bursts, sessions apart).
 * Each tracked visitor's estimate at arrival, and every minute while waiting, against the wait
 * that followed.
 */
export const ACCURACY_SCENARIOS = [
  { name: 'steady: 600 a minute, a line of 3,000 kept up', crowd: '3000@open+ramp:12000/20m', room: { releasePerMinute: 600 } },
  {
    name: 'the rate halves: 600 then 300 a minute from minute 10',
    crowd: '3000@-10m+ramp:6000/10m@-10m+ramp:3000/10m',
    room: { releasePerMinute: 600 },
    event: { releasePerMinute: 300 },
  },
  { name: 'an opening burst: 100,000 at once, 6,000 a minute', crowd: '100000@open', room: { releasePerMinute: 6000 } },
  {
    name: 'the active limit sets the pace: 500 at once, sessions of 5 min, 2,000 a minute',
    crowd: '40000@open+ramp:20000/10m',
    room: { releasePerMinute: 2000, activeLimit: 500 },
    sessionSeconds: 300,
  },
] as const;

export async function measureEstimateByRehearsal() {
  const opening = Date.UTC(2030, 4, 1, 10);
  const rows = [];
  for (const scenario of ACCURACY_SCENARIOS) {
    // Unless the scenario says, sessions of a second and room for a second's releases: the rate is the only limit.
    const activeLimit = Math.ceil(scenario.room.releasePerMinute / 60) + 10;
    const sessionSeconds = 'sessionSeconds' in scenario ? scenario.sessionSeconds : 1;
    const rooms = JSON.stringify([{ name: 'drop', protect: ['/drop'], activeLimit, ...scenario.room }]);
    const events =
      'event' in scenario
        ? JSON.stringify([
            {
              name: 'Halved',
              eventStartTime: new Date(opening).toISOString(),
              eventEndTime: new Date(opening + 3_600_000).toISOString(),
              ...scenario.event,
            },
          ])
        : '[]';
    const config = loadConfig({ ROOMS: rooms, EVENTS: events, SESSION_SECONDS: String(sessionSeconds) });
    const result = await rehearse({ config, crowd: parseCrowd(scenario.crowd), bots: 0, origin: {}, maxMs: 24 * 3_600_000 });
    rows.push({ name: scenario.name, crowd: scenario.crowd, waits: result.waits, drain: result.drain, estimate: result.estimate });
  }
  return rows;
}
