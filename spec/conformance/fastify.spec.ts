import { rawExchange, rawRequest } from '../server/support/raw-http';
import { startFastifySite, type RecordingSite } from './node-sites';
import { casesFor, DOORS, expected } from './table';
import { connectorOutcome, expectVisitorCookie, passCookies, setCookiesOf, withCookies } from './support';

/** A real Fastify 5 server with the connector, each case sent raw on its own connection. */
describe('the conformance table at the Fastify connector', () => {
  let site: RecordingSite;

  beforeAll(async () => {
    site = await startFastifySite();
  });
  afterAll(() => site?.close());

  test.each(casesFor('fastify'))('%s', async (_name, test) => {
    const before = site.ran.length;
    const headers = withCookies(test.headers, await passCookies(test, DOORS.room));
    const answer = await rawExchange(site.port, rawRequest(test.method, test.target, headers, test.body));
    const outcome = connectorOutcome({
      ran: site.ran.length > before,
      status: answer.status,
      location: answer.headers.location,
      contentType: answer.headers['content-type'],
      json: answer.json,
    });
    expect({ case: test.name, outcome }).toEqual({ case: test.name, outcome: expected(test, 'fastify') });
    expectVisitorCookie(test, setCookiesOf(answer.headers));
  });
});
