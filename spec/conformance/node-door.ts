import { rawExchange, rawRequest } from '../server/support/raw-http';
import type { RecordingSite } from './node-sites';
import { casesFor, DOORS, expected, type Door } from './table';
import { connectorOutcome, expectVisitorCookie, passCookies, setCookiesOf, withCookies } from './support';

/**
 * The table at a connector in a real Node framework's server (`start` starts it with the
 * connector in front of a recording handler), each case sent raw on its own connection, so that
 * the framework routes exactly what the table says.
 */
export function describeNodeDoor(door: Extract<Door, 'express' | 'fastify'>, title: string, start: () => Promise<RecordingSite>): void {
  describe(`the conformance table at the ${title} connector`, () => {
    let site: RecordingSite;

    beforeAll(async () => {
      site = await start();
    });
    afterAll(() => site?.close());

    test.each(casesFor(door))('%s', async (_name, test) => {
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
      expect({ case: test.name, outcome }).toEqual({ case: test.name, outcome: expected(test, door) });
      expectVisitorCookie(test, setCookiesOf(answer.headers));
    });
  });
}
