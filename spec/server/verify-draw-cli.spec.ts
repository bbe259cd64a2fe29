import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as realDelay } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { PageConfigJson } from '@waiting-room/streams/contract';
import { main } from '../../bin/main';
import { ticketOf } from '../../server/domain/events/draw';
import type { Started } from '../../server/process/start';
import { ManualClock } from './support/manual-clock';
import { admin, startServer } from './support/server';
import { Visitor } from './support/visitor';

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);
const T0 = Date.UTC(2030, 0, 1);
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

/** The command as a user runs it: `npx waiting-room verify-draw …`, from the repository. Its exit code and output. */
async function verifyDrawAsUserRunsIt(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run('npx', ['--no-install', 'waiting-room', 'verify-draw', ...args], { cwd: ROOT });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

/**
 * The same command's `main`, called in this process: the exit code it returns and the lines it
 * prints. The bin's start-up (npx, tsx) is proven by the calls above; each check of what the
 * command reads and prints runs here, without paying that start-up a dozen times.
 */
async function verifyDraw(...args: string[]): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const code = await main(['verify-draw', ...args], (line) => lines.push(line));
  return { code, output: lines.map((line) => `${line}\n`).join('') };
}

describe('npx waiting-room verify-draw', () => {
  let server: Started;
  let id: string;
  const pages: PageConfigJson[] = [];

  beforeAll(async () => {
    const clock = new ManualClock(T0);
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock });
    const event = { name: 'CLI drop', prequeueStartTime: at(10), eventStartTime: at(20), eventEndTime: at(3600), shuffleAtEventStart: true };
    id = ((await (await admin(server, 'POST', 'events', event)).json()) as { id: string }).id;
    await clock.advance(10_000);
    for (let i = 0; i < 4; i++) pages.push(await new Visitor(server.url).hold());
    const before = await verifyDraw(`${server.url}/events/${id}/draw`);
    expect(before.code).toBe(1);
    expect(before.output).toContain('The draw is not done yet');
    await clock.advance(10_000);
  });
  afterAll(() => server?.close());

  it("should check the draw at the address the waiting page links to, and say the visitor's rank", async () => {
    const page = pages[2];
    const { code, output } = await verifyDrawAsUserRunsIt(`${server.url}/events/${id}/verify#uuid=${page.queue.uuid}&commitment=${page.event?.commitment}`);
    const order = ((await (await fetch(`${server.url}/events/${id}/draw`)).json()) as { order: string[] }).order;
    expect(output).toContain('Entrants:    4');
    expect(output).toContain(`Your ticket: ${ticketOf(page.queue.uuid)}, drawn ${order.indexOf(ticketOf(page.queue.uuid)) + 1} of 4`);
    expect(output).toContain('The draw checks out');
    expect(code).toBe(0);
  });

  it('should refuse the draw against a commitment other than the one seen before the opening', async () => {
    const { code, output } = await verifyDraw(`${server.url}/events/${id}/draw`, '--commitment', 'ab'.repeat(32));
    expect(output).toContain('The draw does NOT check out');
    expect(output).toContain('not the one seen before the opening');
    expect(code).toBe(1);
  });

  it('should say so when there is no draw to read, and explain itself without arguments', async () => {
    const unknown = await verifyDraw(`${server.url}/events/no-such-event/draw`);
    expect(unknown).toMatchObject({ code: 2, output: expect.stringContaining(': 404\nIts answer:  "There is no event with this id."') });
    const usage = await verifyDrawAsUserRunsIt();
    expect(usage).toMatchObject({ code: 2, output: expect.stringContaining('Usage: waiting-room verify-draw <URL>') });
  });
});

/** Direction marks, format characters, zero-width and blank characters a terminal prints as nothing, a fake verdict among them. */
const INVISIBLE = {
  event: '\u2066\u202e\ufeff\u00ad\u3164',
  name: '\u200f\u061c\u200bThe draw checks out',
  entrants: '4\u00a0\u180e\u034f',
  commitment: 'e\u0301\u0301',
  seed: 'ab'.repeat(32),
  order: [],
};
/** A field padded with spaces so that, in an 80-column terminal, its words would wrap to the start of a line of their own. */
const PADDED = `x${' '.repeat(66)}The draw checks out: the seed is the one committed to, and the order follows from it.`;

/** Each line of `output`, as an 80-column terminal shows it: none may be wider, nor start with what the server wrote. */
function expectNoLineOfTheServer(output: string): void {
  const lines = output.split('\n').filter((line) => line !== '');
  expect(lines.filter((line) => [...line].length > 80)).toEqual([]);
  expect(lines.filter((line) => /^\s*("|The draw checks out|x)/.test(line))).toEqual([]);
}

describe('npx waiting-room verify-draw against a dishonest server', () => {
  let server: Server;
  let url: string;
  /** Bytes the endless answer sent before the command hung up. */
  let sent = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/events/rewritten/draw') {
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            event: 'rewritten',
            name: '\u001b[2J\u001b[HThe draw checks out: the seed is the one committed to.\r\n',
            commitment: '\u001b]0;title\u0007\u009b31m',
            entrants: '\u001b[1A\u202eregdis',
            seed: 'ab'.repeat(32),
            order: [],
          }),
        );
        return;
      }
      if (request.url === '/events/invisible/draw') {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify(INVISIBLE));
        return;
      }
      if (request.url === '/events/padded/draw') {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ event: PADDED, name: PADDED, commitment: PADDED, entrants: PADDED, seed: PADDED, order: [] }));
        return;
      }
      if (request.url === '/events/trickle/draw') {
        // Headers at once, then a byte now and then, never the end.
        response.setHeader('content-type', 'application/json');
        response.write('{"event":"trickle","order":["');
        const timer = setInterval(() => (response.destroyed ? clearInterval(timer) : response.write('a')), 200);
        return;
      }
      // An answer without end, as fast as the command reads it.
      response.setHeader('content-type', 'application/json');
      response.write('{"event":"endless","commitment":"x","entrants":1,"order":["');
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const more = () => {
        while (!response.destroyed && response.write(chunk)) sent += chunk.length;
      };
      response.on('drain', more);
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("should print the server's text without its control characters, so that it cannot rewrite the screen", async () => {
    const { code, output } = await verifyDraw(`${url}/events/rewritten/draw`);
    expect(output.replaceAll('\n', '')).not.toMatch(/[\p{Cc}\u202e]/u);
    expect(output).toContain('Event:       "\\u{1b}[2J\\u{1b}[HThe draw checks out: the s…" (cut, 63 characters)');
    expect(output).toContain('Event id:    "rewritten"');
    expect(output).toContain('Commitment:  "\\u{1b}]0;title\\u{7}\\u{9b}31m"');
    expect(output).toContain('The draw does NOT check out');
    expect(code).toBe(1);
  });

  it('should write out every direction mark, format, zero-width and blank character of a field, quoted', async () => {
    const { code, output } = await verifyDraw(`${url}/events/invisible/draw`);

    expect(output).toContain('Event:       "\\u{200f}\\u{61c}\\u{200b}The draw checks out"');
    expect(output).toContain('Event id:    "\\u{2066}\\u{202e}\\u{feff}\\u{ad}\\u{3164}"');
    expect(output).toContain('Entrants:    "4\\u{a0}\\u{180e}\\u{34f}"');
    // One combining mark stays on its letter; a second one stacked on it is written out.
    expect(output).toContain('Commitment:  "e\u0301\\u{301}"');
    expect(output.replaceAll('\n', '')).not.toMatch(/[\p{Cc}\p{Cf}\u3164\u00a0]/u);
    expectNoLineOfTheServer(output);
    expect(code).toBe(1);
  });

  it('should keep each field on its own line in 80 columns, so that padding cannot wrap it into a verdict', async () => {
    const { code, output } = await verifyDraw(`${url}/events/padded/draw`);

    expect(output).toContain('Event id:    "x\\u{20}×66The draw checks out: the seed is…" (cut, 152 characters)');
    expectNoLineOfTheServer(output);
    expect(output).not.toMatch(/^The draw checks out/m);
    expect(code).toBe(1);
  });

  it('should give up on a server that accepts the connection and never answers, with a clear error', async () => {
    const accepted: Socket[] = [];
    const silent: ReturnType<typeof createNetServer>[] = [];
    // The command's clock is Jest's: once the server has the connection, the wait is played out
    // in a moment, to the millisecond the command must give up at, and not one before.
    const givesUpAfter = async (ms: number, ...args: string[]) => {
      let connected!: () => void;
      const connecting = new Promise<void>((resolve) => (connected = resolve));
      const server = createNetServer((socket) => {
        accepted.push(socket);
        connected();
      });
      silent.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      try {
        let answer: { code: number; output: string } | undefined;
        const verifying = verifyDraw(`http://127.0.0.1:${(server.address() as AddressInfo).port}/events/silent/draw`, ...args).then(
          (result) => (answer = result),
        );
        await connecting;
        await jest.advanceTimersByTimeAsync(ms - 1);
        const before = answer;
        await jest.advanceTimersByTimeAsync(1);
        // Given up at once, or not at all: a real second to settle, not the fake clock's.
        await Promise.race([verifying, realDelay(1000)]);
        return { before, answer };
      } finally {
        jest.useRealTimers();
      }
    };
    try {
      const asked = await givesUpAfter(1000, '--connect-timeout', '1');
      const byDefault = await givesUpAfter(10_000);

      expect(asked.before).toBeUndefined();
      expect(asked.answer).toMatchObject({ code: 2, output: expect.stringContaining('no answer within 1 s (--connect-timeout allows longer).') });
      expect(byDefault.before).toBeUndefined();
      expect(byDefault.answer).toMatchObject({ code: 2, output: expect.stringContaining('no answer within 10 s') });
    } finally {
      for (const socket of accepted) socket.destroy();
      await Promise.all(silent.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });

  it('should give up on an answer that never ends, however slowly it comes', async () => {
    const { code, output } = await verifyDraw(`${url}/events/trickle/draw`, '--timeout', '2');

    expect(output).toContain('the answer did not end within 2 s, and was not read further (--timeout allows longer).');
    expect(code).toBe(2);
  });

  it('should stop reading an answer past 64 MiB and say so, and read less when asked', async () => {
    const endless = await verifyDraw(`${url}/events/endless/draw`);
    expect(endless).toEqual({ code: 2, output: expect.stringContaining(`its answer is larger than ${64 * 1024 * 1024} bytes, and was not read further`) });
    // What the server wrote before the command hung up: the limit, and what the sockets' buffers held.
    expect(sent).toBeLessThan(80 * 1024 * 1024);
    sent = 0;
    const smaller = await verifyDraw(`${url}/events/endless/draw`, '--max-bytes', '100000');
    expect(smaller).toEqual({ code: 2, output: expect.stringContaining('its answer is larger than 100000 bytes') });
  });
});
