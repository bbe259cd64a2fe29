/**
 * The capacity ramp (bench/README.md): visitors added a step at a time until the first error or a
 * release p99 over a limit. On Redis the deployment is the one docs/operations.md describes: one
 * server process per core sharing the line and the realtime events through Redis.
 */
import os from 'node:os';
import { openFileLimit, pacedWindow, Rig, summary, untilNoneActive, type PacedFigures, type ServerSettings } from './rig';

/**
 * `step`: visitors added at each step; `measureSeconds` of polling at the page's pace measured at
 * each (after a short warm-up); a release p99 (decision → read by the visitor) over
 * `releaseP99LimitMs` ends the ramp.
 */
export type RampOptions = Pick<ServerSettings, 'releasePerMinute' | 'pageDir' | 'redisUrl'> & Steps & { log: (line: string) => void };
type Steps = { store: 'memory' | 'redis'; step: number; maxVisitors: number; measureSeconds: number; releaseP99LimitMs: number };

/** Sockets one visitors' process holds at most, well inside its open-file limit. */
const VISITORS_PER_PROCESS = 9_000;
/** Keep-alive sockets of each of the two pollers. */
const POLL_SOCKETS = 128;
/** Sockets a server keeps for its own use (origin, Redis, files) beside the visitors' and the pollers'. */
const SERVER_RESERVE = 1_000 + 2 * POLL_SOCKETS;
const SESSION_SECONDS = 5;

/** Runs the ramp on one store and returns every step and the knee. */
export async function runRamp(options: RampOptions) {
  const files = openFileLimit() ?? 20_000;
  const serverCount = options.store === 'redis' ? Math.max(2, os.cpus().length) : 1;
  const perServer = files - SERVER_RESERVE;
  const maxVisitors = Math.min(options.maxVisitors, serverCount * perServer);
  const bound = maxVisitors < options.maxVisitors ? `the open-file limit (${files}) of ${serverCount} server process(es)` : "the ramp's maximum";
  const rig = new Rig();
  try {
    const settings = { ...options, activeLimit: Math.ceil(options.releasePerMinute / 6), sessionSeconds: SESSION_SECONDS };
    const { servers, admin } = await rig.servers(serverCount, settings, { REALTIME_MAX_CONNECTIONS: String(perServer) });
    const visitors = await rig.visitors(Math.max(2, Math.ceil(maxVisitors / VISITORS_PER_PROCESS)), servers);
    const pollers = await rig.pollers(2, visitors);
    options.log(`  ${options.store}: ${serverCount} server process(es); +${options.step} visitors a step up to ${maxVisitors} (${bound})…`);
    type Step = Pick<PacedFigures, 'polls' | 'releases' | 'servers'> & {
      waiting: number;
      visitorsLoopDelayMs: { max: number };
      errors: Record<string, number>;
    };
    const steps: Step[] = [];
    let stoppedBy = `reached ${maxVisitors}, ${bound}`;
    for (let waiting = Math.min(options.step, maxVisitors); waiting <= maxVisitors; waiting += options.step) {
      const hold = await visitors.hold(waiting - ((await admin('GET', '/admin/stats')) as { waiting: number }).waiting);
      await untilNoneActive(admin, SESSION_SECONDS);
      const paced = await pacedWindow(
        { servers, visitors, pollers, admin },
        { seconds: options.measureSeconds, warmupSeconds: 2, factor: 1, sockets: POLL_SOCKETS },
      );
      const errors = { hold: hold.errorCount, visitorLives: paced.lives.errorCount, ...paced.errors };
      const total = Object.values(errors).reduce((sum, count) => sum + count, 0);
      const { polls, releases, servers: loops, lives } = paced;
      steps.push({ waiting, polls, releases, servers: loops, visitorsLoopDelayMs: { max: lives.loopDelayMaxMs }, errors: { ...errors, total } });
      const details = total > 0 ? ` ${JSON.stringify({ hold: hold.errors, lives: lives.errors, polls: polls.errors })}` : '';
      options.log(`  ${waiting} waiting, ${hold.errorCount + lives.errorCount} holding or listening errors, ${summary(paced)}${details}`);
      if (total > 0) {
        stoppedBy = `${total} errors at ${waiting} waiting`;
        break;
      }
      if (!(releases.latencyMs.p99 <= options.releaseP99LimitMs)) {
        stoppedBy = `release p99 ${releases.latencyMs.p99} ms at ${waiting} waiting, over ${options.releaseP99LimitMs} ms`;
        break;
      }
      if (waiting < maxVisitors && waiting + options.step > maxVisitors) waiting = maxVisitors - options.step;
    }
    const passed = steps.filter((step) => step.errors.total === 0 && step.releases.latencyMs.p99 <= options.releaseP99LimitMs);
    const { log: _log, pageDir: _pageDir, redisUrl: _redisUrl, ...chosen } = options;
    return {
      settings: { ...chosen, serverProcesses: serverCount, visitorProcesses: visitors.children.length, pollers: 2, maxVisitors },
      openFiles: files,
      steps,
      /** The most visitors waiting at a step with no error and the release p99 within its limit. */
      knee: passed.at(-1)?.waiting ?? 0,
      stoppedBy,
    };
  } finally {
    await rig.close();
  }
}

export type RampResult = Awaited<ReturnType<typeof runRamp>>;
