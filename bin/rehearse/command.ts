import { writeFileSync } from 'node:fs';
import { loadConfig } from '../../server/process/config';
import { CROWD_SYNTAX, durationMs, parseCrowd, type CrowdPart } from './crowd';
import { htmlReport } from './html';
import { LATENCY_SYNTAX, parseLatencyCurve, type OriginModel } from './origin';
import { rehearse, SOLVE_MS } from './rehearse';
import { textReport } from './report';

export const REHEARSE_USAGE = `Usage: waiting-room rehearse --crowd <crowd> [--room <name>] [--event <id>|none] [--bots <share>]
                           [--origin-capacity <n>] [--origin-latency <curve>] [--max <duration>]
                           [--json] [--html <file>]

Runs the server's own admission law, line and estimate on a virtual clock against a crowd, and
says what the event will look like: the line over time, waits p50/p90/p99 by arrival time, the
origin's load, when the line drains, what the page's estimate says and how far off it is.
The rooms and events are the server's: ROOMS/ROOMS_FILE, EVENTS/EVENTS_FILE and every variable.

  --crowd             who comes, from the opening of the room's event (or the start): ${CROWD_SYNTAX}
                      e.g. 100000@open, 20000@-5m+ramp:50000/10m, waves:3x20000/5m
  --room              the room (the first by default)
  --event             the event whose opening the crowd counts from (the room's first by default; none: no event)
  --bots              share of the crowd that are bots (0 to 0.99): kept out when the bot check is on
                      (people pass it in ${SOLVE_MS / 1000} s); with it off they wait like anyone
  --origin-capacity   admitted visitors the origin takes at once: its load is shown against it
  --origin-latency    the origin's answer time by admitted visitors, ${LATENCY_SYNTAX};
                      needed for a room with adaptive admission, which follows it
  --max               virtual time after the last arrival for the line to drain (24h by default)
  --json              the figures as JSON
  --html              also writes a page with the charts (SVG, self-contained) to <file>

Nobody walks away in a rehearsal (every page stays open). Exits 0, or 2 on bad input, naming it.`;

interface Options {
  crowd?: readonly CrowdPart[];
  room?: string;
  event?: string;
  bots: number;
  origin: { capacity?: number; latencyMs?: (active: number) => number; curve?: string };
  maxMs: number;
  json: boolean;
  html?: string;
}

/** Reads the command line; throws an Error naming the option that is wrong. */
export function rehearseOptions(args: readonly string[]): Options {
  const options: Options = { bots: 0, origin: {}, maxMs: 24 * 3_600_000, json: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = () => {
      const next = args[++i];
      if (next === undefined || next.startsWith('--')) throw new Error(`${arg} needs a value.`);
      return next;
    };
    if (arg === '--crowd') options.crowd = parseCrowd(value());
    else if (arg === '--room') options.room = value();
    else if (arg === '--event') options.event = value();
    else if (arg === '--bots') {
      const text = value();
      const share = /^(0(\.\d+)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
      if (!(share >= 0 && share < 1)) throw new Error(`--bots: "${text}" must be a share from 0 to 0.99.`);
      options.bots = share;
    } else if (arg === '--origin-capacity') {
      const text = value();
      if (!/^[1-9]\d{0,8}$/.test(text)) throw new Error(`--origin-capacity: "${text}" must be a whole number of admitted visitors.`);
      options.origin.capacity = Number(text);
    } else if (arg === '--origin-latency') {
      const curve = value();
      options.origin.latencyMs = parseLatencyCurve(curve);
      options.origin.curve = curve;
    } else if (arg === '--max') {
      const text = value();
      const ms = durationMs(text);
      if (ms === undefined || ms <= 0 || ms > 30 * 24 * 3_600_000) throw new Error(`--max: "${text}" must be a duration such as 90m or 24h (30 days at most).`);
      options.maxMs = ms;
    } else if (arg === '--json') options.json = true;
    else if (arg === '--html') options.html = value();
    else throw new Error(`unknown option "${arg}".`);
  }
  if (!options.crowd) throw new Error(`--crowd is needed: ${CROWD_SYNTAX}.`);
  return options;
}

/** `waiting-room rehearse`: its exit code. */
export async function rehearseCommand(
  args: readonly string[],
  out: (line: string) => void,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    out(REHEARSE_USAGE);
    return 0;
  }
  let options: Options;
  try {
    options = rehearseOptions(args);
  } catch (error) {
    out(`waiting-room rehearse: ${(error as Error).message}\n\n${REHEARSE_USAGE}`);
    return 2;
  }
  try {
    const config = loadConfig(env);
    const origin: OriginModel = options.origin;
    const result = await rehearse({
      config,
      room: options.room,
      event: options.event,
      crowd: options.crowd as readonly CrowdPart[],
      bots: options.bots,
      origin,
      maxMs: options.maxMs,
    });
    if (options.html !== undefined) writeFileSync(options.html, htmlReport(result));
    out(options.json ? JSON.stringify(result, null, 2) : textReport(result));
    return 0;
  } catch (error) {
    out(`waiting-room rehearse: ${(error as Error).message}`);
    return 2;
  }
}
