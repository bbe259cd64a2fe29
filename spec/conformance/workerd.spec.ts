import { randomBytes } from 'node:crypto';
import { PASS_COOKIE, signPass, VISITOR_COOKIE } from '@waiting-room/connector';
import { startWorkerOrigin, type WorkerOrigin } from '../connector/support/worker-origin';
import { startExampleWorker, type WorkerdServer } from '../connector/support/workerd';
import { rawRequest, type RawAnswer } from '../support/raw-http';
import { ensureWaitingPageBuilt } from '../support/waiting-page-built';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { casesFor, DOORS, expected, type DoorCase } from './table';

const SECRET = 'the-conformance-tables-pass-secret-in-workerd';
/** The waiting room when no case revokes: never called, since the connector decides alone. */
const UNCALLED_WAITING_ROOM = 'http://127.0.0.1:9';
/** The path where the site behind the Worker answers with `Waiting-Room-Command: revoke`. */
const REVOKE_PATH = '/revoke';

/**
 * Cases the shared decision core does not meet yet, whatever the door, with why. They run, and
 * must fail: one the core comes to meet fails here, to be taken off this list.
 */
const KNOWN_DRIFT: Readonly<Record<string, string>> = {};

/**
 * The door table at the example Worker (connector/examples/worker), bundled as wrangler would
 * and run in the real workerd, configured with the table's room and prefixes: each case sent
 * over its own socket exactly as written (workerd builds the request's URL from the request line
 * and Host as sent), the site behind the Worker recording whether its handler ran. A `revoked`
 * pass is revoked through the Worker, by the site's revoke command, at the real waiting room.
 */
describe('the conformance table at the Worker in workerd', () => {
  let server: WaitingRoomServer | undefined;
  let origin: WorkerOrigin;
  let worker: WorkerdServer;
  let waitingRoom = UNCALLED_WAITING_ROOM;

  beforeAll(async () => {
    if (DOORS.cases.some((test) => test.pass === 'revoked')) {
      await ensureWaitingPageBuilt();
      server = await startWaitingRoom({ ROOMS: JSON.stringify([{ name: DOORS.room, protect: DOORS.protect }]), PASS_SECRET: SECRET });
      waitingRoom = server.url;
    }
    origin = await startWorkerOrigin();
    worker = await startExampleWorker({
      secret: SECRET,
      vars: { WAITING_ROOM_URL: waitingRoom, WAITING_ROOM_ROOM: DOORS.room, WAITING_ROOM_PROTECT: DOORS.protect.join(','), ORIGIN_URL: origin.url },
    });
  }, 180_000);

  afterAll(async () => {
    await worker?.close();
    await origin?.close();
    await server?.close();
  });

  /** The cookies of a browser named `visitor` with the case's pass, revoked through the Worker first if the case says so. */
  async function passCookies(test: DoorCase, visitor: string): Promise<string | undefined> {
    if (test.pass === 'none') return undefined;
    const at = Math.floor(Date.now() / 1000);
    const claims = { room: DOORS.room, visitor, session: `conformance-${visitor}`, issuedAt: at, expiresAt: at + 300 };
    const token = await {
      valid: () => signPass(claims, SECRET),
      revoked: () => signPass(claims, SECRET),
      forged: () => signPass(claims, `${SECRET}-not-it`),
      'other-visitor': () => signPass({ ...claims, visitor: `${visitor}-another` }, SECRET),
      expired: () => signPass({ ...claims, issuedAt: at - 600, expiresAt: at - 300 }, SECRET),
    }[test.pass]();
    const cookies = `${VISITOR_COOKIE}=${visitor}; ${PASS_COOKIE}=${token}`;
    if (test.pass === 'revoked') {
      const answer = await rawRequest(worker.port, { method: 'GET', target: REVOKE_PATH, headers: { host: 'shop.example', cookie: cookies } });
      expect(answer.status).toBe(200);
      expect(setCookies(answer).filter((value) => value.startsWith(`${PASS_COOKIE}=;`))).toHaveLength(1);
    }
    return cookies;
  }

  /** What the Worker did: the site's handler ran, or which answer it gave instead. */
  function outcomeOf(answer: RawAnswer, ran: boolean): string {
    if (ran) return answer.status < 400 ? 'site' : `the site ran, then ${answer.status}`;
    const location = answer.header('location');
    if (answer.status === 303 && location?.startsWith(`${waitingRoom}/queue/enter/`)) return 'wait-browser';
    if (
      answer.status === 503 &&
      answer.header('content-type')?.startsWith('application/json') &&
      (JSON.parse(answer.body) as { error?: string }).error === 'waiting_room'
    ) {
      return 'wait-api';
    }
    if (answer.status >= 400 && answer.status < 500) return 'refused';
    return `unexpected: ${answer.status} ${location ?? ''} ${answer.body.slice(0, 200)}`;
  }

  const run = async (_name: string, test: DoorCase) => {
    const visitor = randomBytes(16).toString('base64url');
    const cookies = await passCookies(test, visitor);
    const headers = cookies === undefined ? test.headers : { ...test.headers, cookie: test.headers.cookie ? `${test.headers.cookie}; ${cookies}` : cookies };
    const before = origin.served.length;
    const answer = await rawRequest(worker.port, { method: test.method, target: test.target, headers, body: test.body });
    const outcome = outcomeOf(answer, origin.served.length > before);
    expect({ case: test.name, outcome }).toEqual({ case: test.name, outcome: expected(test, 'workerd') });
    if (test.visitorCookie !== undefined) {
      const set = setCookies(answer)
        .find((value) => value.startsWith(`${VISITOR_COOKIE}=`))
        ?.slice(VISITOR_COOKIE.length + 1)
        .split(';')[0];
      expect({ case: test.name, set }).toEqual({
        case: test.name,
        set: test.visitorCookie === 'kept' ? undefined : expect.stringMatching(/^[A-Za-z0-9_-]{16,64}$/),
      });
    }
  };
  const cases = casesFor('workerd');
  const drifting = cases.filter(([, test]) => test.name in KNOWN_DRIFT);
  test.each(cases.filter(([, test]) => !(test.name in KNOWN_DRIFT)))('%s', run);
  if (drifting.length > 0) test.failing.each(drifting)('%s: known drift of the core', run);
});

function setCookies(answer: RawAnswer): string[] {
  return answer.headers.filter(([name]) => name === 'set-cookie').map(([, value]) => value);
}
