import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { rehearseCommand } from '../../bin/rehearse/command';
import type { Rehearsal } from '../../bin/rehearse/rehearse';
import { parseCrowd, arrivalTimes } from '../../bin/rehearse/crowd';

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');
const ROOM = (fields: object = {}) => JSON.stringify([{ name: 'shop', protect: ['/shop'], activeLimit: 20, releasePerMinute: 600, ...fields }]);

/** The command in this process, with its own environment: its exit code and what it printed. */
async function rehearse(env: Record<string, string>, ...args: string[]): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const code = await rehearseCommand(args, (line) => lines.push(line), env);
  return { code, output: lines.join('\n') };
}

async function json(env: Record<string, string>, ...args: string[]): Promise<Rehearsal> {
  const { code, output } = await rehearse(env, ...args, '--json');
  expect(code).toBe(0);
  return JSON.parse(output) as Rehearsal;
}

describe('waiting-room rehearse', () => {
  it('should drain 6,000 arriving at the opening in 10 minutes at 600 releases a minute', async () => {
    // Sessions of a second: the rate is the only limit, 10 a second after the 20 let in at once.
    const result = await json({ ROOMS: ROOM(), SESSION_SECONDS: '1' }, '--crowd', '6000@open');
    expect(result.drain?.fromFirstArrival).toBeGreaterThanOrEqual(595);
    expect(result.drain?.fromFirstArrival).toBeLessThanOrEqual(600);
    expect(result.waits.through).toBe(6000);
    expect(result.waits.p50).toBeCloseTo(299, -1);
    expect(result.waits.p90).toBeCloseTo(539, -1);
    // The estimate rounds up: never below the wait, less than a minute above it.
    expect(result.estimate.atArrival?.bias).toBeGreaterThan(0);
    expect(result.estimate.atArrival?.meanError).toBeLessThan(1);
  });

  it("should hold a pre-queue until the event's opening and follow the event's rate", async () => {
    const events = JSON.stringify([
      {
        name: 'Spring drop',
        prequeueStartTime: '2030-05-01T09:30:00Z',
        eventStartTime: '2030-05-01T10:00:00Z',
        eventEndTime: '2030-05-01T12:00:00Z',
        shuffleAtEventStart: true,
        releasePerMinute: 1200,
      },
    ]);
    const result = await json({ ROOMS: ROOM(), EVENTS: events, SESSION_SECONDS: '1' }, '--crowd', '3000@-5m+ramp:1200/2m');
    expect(result.event?.id).toBe('spring-drop');
    // Nobody is let in before the opening; then 20 a second: 4,200 take 210 s.
    expect(result.drain?.fromOpening).toBeGreaterThanOrEqual(205);
    expect(result.drain?.fromOpening).toBeLessThanOrEqual(215);
    expect(result.waitsByArrival[0].p50).toBeGreaterThanOrEqual(300);
  });

  it('should keep the bots out when the bot check is on, and let them wait when it is off', async () => {
    const checked = await json({ ROOMS: ROOM({ botChallenge: 'pow' }), SESSION_SECONDS: '1' }, '--crowd', '2000@open', '--bots', '0.5');
    expect(checked.crowd.bots).toBeGreaterThan(900);
    expect(checked.crowd.bots).toBeLessThan(1100);
    expect(checked.waits.through).toBe(checked.waits.people);
    // People only: half the crowd, 10 a second, after the 3 s the check takes.
    expect(checked.drain?.fromFirstArrival).toBeLessThan(120);
    const open = await json({ ROOMS: ROOM(), SESSION_SECONDS: '1' }, '--crowd', '2000@open', '--bots', '0.5');
    expect(open.drain?.fromFirstArrival).toBeGreaterThan(190);
  });

  it("should follow adaptive admission along the origin's latency curve", async () => {
    const rooms = ROOM({ admission: 'adaptive', activeLimit: 5000, releasePerMinute: 6000 });
    const result = await json(
      { ROOMS: rooms, SESSION_SECONDS: '60', ORIGIN_LATENCY_TARGET_MS: '400' },
      '--crowd',
      '5000@open',
      '--origin-latency',
      '0:50,200:300,400:2000',
    );
    expect(result.admission).toBe('adaptive');
    expect(result.drain).not.toBeNull();
    // The controller keeps the origin near its target, far below the ceiling of 5,000 at once.
    expect(result.origin.peakActive).toBeLessThan(1000);
  });

  it('should name what is wrong in bad input', async () => {
    const env = { ROOMS: ROOM() };
    const cases: [string[], string][] = [
      [['--crowd', '100@open', '--room', 'tickets'], 'there is no room "tickets"; rooms: shop'],
      [['--crowd', 'lots@open'], '"lots@open" does not parse'],
      [['--crowd', '100@open+ramp:50/soon'], '"ramp:50/soon" does not parse'],
      [['--crowd', '100', '--event', 'spring'], 'room "shop" has no event "spring"'],
      [['--crowd', '100', '--bots', '2'], '--bots: "2"'],
      [['--crowd', '100', '--origin-latency', '0:50,fast'], '--origin-latency: "fast" does not parse'],
      [['--crowd', '100', '--wat'], 'unknown option "--wat"'],
      [[], '--crowd is needed'],
    ];
    for (const [args, message] of cases) {
      const { code, output } = await rehearse(env, ...args);
      expect(output).toContain(message);
      expect(code).toBe(2);
    }
    const adaptive = await rehearse({ ROOMS: ROOM({ admission: 'adaptive' }) }, '--crowd', '100');
    expect(adaptive.output).toContain('room "shop" admits adaptively: give the origin\'s latency curve');
    const config = await rehearse({ ROOMS: '[{"name": "shop"}]' }, '--crowd', '100');
    expect(config.output).toContain('ROOMS[0].protect');
    expect(config.code).toBe(2);
  });

  it('should spread a ramp and waves as written', () => {
    expect([...arrivalTimes(parseCrowd('ramp:4/1m'))]).toEqual([0, 15_000, 30_000, 45_000]);
    expect([...arrivalTimes(parseCrowd('waves:3x2/5m+1@-30s'))]).toEqual([-30_000, 0, 0, 300_000, 300_000, 600_000, 600_000]);
    expect([...arrivalTimes(parseCrowd('ramp:2/1m@-1m+waves:2x1/1m@1h'))]).toEqual([-60_000, -30_000, 3_600_000, 3_660_000]);
  });

  it('should print JSON that parses, and write a page of charts that fetches nothing, from the command line', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rehearse-'));
    try {
      const page = path.join(dir, 'drop.html');
      const { stdout } = await promisify(execFile)(
        'npx',
        ['--no-install', 'waiting-room', 'rehearse', '--crowd', 'ramp:3000/2m', '--origin-capacity', '15', '--json', '--html', page],
        { cwd: ROOT, env: { ...process.env, ROOMS: ROOM(), SESSION_SECONDS: '1' } },
      );
      const result = JSON.parse(stdout) as Rehearsal;
      expect(result.crowd.visitors).toBe(3000);
      expect(result.origin).toMatchObject({ capacity: 15, peakActive: 20 });
      const html = readFileSync(page, 'utf8');
      expect(html.match(/<svg /g)?.length).toBeGreaterThanOrEqual(4);
      expect(html).not.toMatch(/\b(src|href)=/);
      expect(html).toContain('The line drains');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
