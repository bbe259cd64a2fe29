import { HELD_HEADER } from '@waiting-room/streams/contract';
import { ManualClock } from '../server/support/manual-clock';
import { rawExchange, rawRequest, type RawAnswer } from '../server/support/raw-http';
import { startServer, type StartedWithOrigin } from '../server/support/server';
import { Visitor } from '../server/support/visitor';
import { casesFor, DOORS, expected } from './table';
import { passCookies, withCookies } from './support';

/** The outcome the gateway's answer shows: the origin reached, the waiting page, held JSON, or a 4xx. */
function gatewayOutcome(answer: RawAnswer, reachedOrigin: boolean): string {
  const held = answer.headers[HELD_HEADER.name] === HELD_HEADER.value;
  const type = answer.headers['content-type'] ?? '';
  if (reachedOrigin) return answer.status < 400 ? 'site' : `the origin was reached, then ${answer.status}`;
  if (held && answer.status === 200 && type.startsWith('text/html')) return 'wait-browser';
  if (held && answer.status === 503 && type.startsWith('application/json')) return 'wait-api';
  if (answer.status >= 400 && answer.status < 500) return 'refused';
  return `unexpected: ${answer.status} ${type}`;
}

/**
 * The real gateway in front of a recording origin, the room full (one visitor admitted, no
 * releases): each case sent raw on its own connection. A case with a valid pass is sent as the
 * admitted visitor (the gateway admits a session; it reads no pass of a visitor's).
 */
describe('the conformance table at the gateway', () => {
  let server: StartedWithOrigin;
  let admitted: Visitor;

  beforeAll(async () => {
    server = await startServer({ PROTECT: DOORS.protect.join(','), ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock: new ManualClock() });
    admitted = new Visitor(server.url);
    expect((await admitted.get('/checkout')).status).toBe(200);
    expect(server.origin.received).toHaveLength(1);
  });
  afterAll(() => server?.close());

  test.each(casesFor('gateway'))('%s', async (_name, test) => {
    const before = server.origin.received.length;
    const cookies = [await passCookies(test, DOORS.room), test.pass === 'valid' ? admitted.cookie : undefined].filter(Boolean).join('; ');
    const headers = withCookies(test.headers, cookies || undefined);
    const answer = await rawExchange(server.port, rawRequest(test.method, test.target, headers, test.body));
    const outcome = gatewayOutcome(answer, server.origin.received.length > before);
    expect({ case: test.name, outcome }).toEqual({ case: test.name, outcome: expected(test, 'gateway') });
  });
});
