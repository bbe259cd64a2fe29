import type { Socket } from 'node:net';
import { ROUTES, UNKNOWN_UUID } from '@waiting-room/streams/contract';
import { TurnBudget } from '../../server/http/turn-budget';
import { MemoryStore } from '../../server/store/memory';
import type { Entry } from '../../server/store/types';
import { openRaw, rawRequest, readUntilClosed } from './support/raw-http';
import { admin, startServer, type StartedWithOrigin } from './support/server';

const WAITING = 40;

async function until(condition: () => boolean): Promise<void> {
  for (let turns = 0; !condition(); turns++) {
    if (turns > 10_000) throw new Error('never happened');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Sends `request` on a kept-alive connection and reads its whole answer (status line, headers, Content-Length body). */
function firstAnswer(socket: Socket, request: string): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const read = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      if (end === -1 || length === undefined || text.length < end + 4 + Number(length)) return;
      socket.off('data', read);
      resolve(text);
    };
    socket.on('data', read);
    socket.write(request, 'latin1');
  });
}
const UNKNOWN = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];

describe('a burst of queue_info', () => {
  let server: StartedWithOrigin;
  let store: MemoryStore;
  let budget: TurnBudget;
  /** Check phases of the event loop so far (a `setImmediate` that comes back every turn). */
  let turns = 0;
  let ticking = true;
  let maxBacklog = 0;
  /** The turn in which each answer was written. */
  const writtenIn: number[] = [];

  beforeAll(async () => {
    // Every look at this clock is 5 ms later: each answer spends a whole 4 ms slice.
    let ms = 0;
    budget = new TurnBudget(4, () => (ms += 5));
    const run = budget.run.bind(budget);
    budget.run = (work) =>
      run(() => {
        writtenIn.push(turns);
        work();
      });
    store = new MemoryStore();
    server = await startServer({}, { store, answerBudget: budget });
    await admin(server, 'POST', 'pause');
    const tick = () => {
      turns++;
      maxBacklog = Math.max(maxBacklog, budget.backlog);
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
  });

  afterAll(async () => {
    ticking = false;
    await server?.close();
  });

  it('should be answered across several turns of the event loop, one slice each, every answer its own and correct', async () => {
    const held: Entry[] = [];
    for (let index = 0; index < WAITING; index++) held.push(await store.hold(`session-${index}`, 0, { method: 'GET', uri: '/checkout' }, Date.now()));
    const uuids = [...held.map((entry) => entry.uuid), ...UNKNOWN];
    const sockets: Socket[] = await Promise.all(uuids.map(() => openRaw(server.port)));

    // Each connection taken and used once by the server, so that it reads the burst from all of them in one turn.
    for (const socket of sockets) await firstAnswer(socket, rawRequest('GET', ROUTES.queue_info.replace('{uuid}', UNKNOWN[0]), { connection: 'keep-alive' }));
    const answers = sockets.map((socket) => readUntilClosed(socket));
    // All written in one turn: the server reads them together.
    sockets.forEach((socket, index) => socket.write(rawRequest('GET', ROUTES.queue_info.replace('{uuid}', uuids[index])), 'latin1'));
    const answered = await Promise.all(answers);

    held.forEach((entry, index) => {
      const { status, json, headers } = answered[index];
      expect(status).toBe(200);
      expect(headers['cache-control']).toBe('no-store');
      expect(json).toEqual({ position: index + 1, estimated: expect.any(Number), ticket: entry.ticket, served: 0 });
    });
    for (const { status, json } of answered.slice(WAITING)) {
      expect(status).toBe(404);
      expect(json.error.code).toBe(UNKNOWN_UUID);
    }
    // Each of the waiting visitors' answers written once, no two in one turn.
    expect(writtenIn).toHaveLength(WAITING);
    expect(new Set(writtenIn).size).toBe(WAITING);
    expect(maxBacklog).toBeGreaterThanOrEqual(WAITING / 2);
  });

  it('should write the answers still owed after some of the burst hung up, and go on answering', async () => {
    const held: Entry[] = [];
    for (let index = 0; index < 20; index++) held.push(await store.hold(`leaver-${index}`, 0, { method: 'GET', uri: '/checkout' }, Date.now()));
    const sockets: Socket[] = await Promise.all(held.map(() => openRaw(server.port)));
    for (const socket of sockets) await firstAnswer(socket, rawRequest('GET', ROUTES.queue_info.replace('{uuid}', UNKNOWN[0]), { connection: 'keep-alive' }));
    const answers = sockets.map((socket) => readUntilClosed(socket));
    const before = writtenIn.length;

    sockets.forEach((socket, index) => socket.write(rawRequest('GET', ROUTES.queue_info.replace('{uuid}', held[index].uuid)), 'latin1'));
    // Every other visitor leaves while the answers are being written a turn at a time.
    await new Promise((resolve) => setImmediate(resolve));
    sockets.forEach((socket, index) => index % 2 === 1 && socket.destroy());
    const answered = await Promise.all(answers);

    const positionOf = (index: number) => WAITING + 1 + index;
    answered.forEach(({ status, json }, index) => {
      if (index % 2 === 0) expect({ status, position: json?.position }).toEqual({ status: 200, position: positionOf(index) });
    });
    await until(() => writtenIn.length - before === held.length);
    const later = await fetch(`${server.url}${ROUTES.queue_info.replace('{uuid}', held[0].uuid)}`);
    expect(later.status).toBe(200);
    expect(await later.json()).toMatchObject({ position: positionOf(0) });
  });
});
