import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type { PageConfigJson } from '@waiting-room/streams/contract';
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
async function verifyDraw(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run('npx', ['--no-install', 'waiting-room', 'verify-draw', ...args], { cwd: ROOT });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
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
    const { code, output } = await verifyDraw(`${server.url}/events/${id}/verify#uuid=${page.queue.uuid}&commitment=${page.event?.commitment}`);
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
    expect(unknown).toMatchObject({ code: 2, output: expect.stringContaining('404 There is no event with this id.') });
    const usage = await verifyDraw();
    expect(usage).toMatchObject({ code: 2, output: expect.stringContaining('Usage: waiting-room verify-draw <URL>') });
  });
});

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
    expect(output).toContain('Event:       \\u{1b}[2J\\u{1b}[HThe draw checks out: the seed is the one committed to.\\u{d}\\u{a} (rewritten)');
    expect(output).toContain('Commitment:  \\u{1b}]0;title\\u{7}\\u{9b}31m');
    expect(output).toContain('The draw does NOT check out');
    expect(code).toBe(1);
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
