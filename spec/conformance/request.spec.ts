import { createWebConnector } from '@waiting-room/connector';
import { casesFor, DOORS, expected } from './table';
import { connectorOutcome, expectVisitorCookie, fetchRequestOf, passCookies, SECRET, WAITING_ROOM } from './support';

/** The `Request` core in Node: each case as a fetch Request, the site "running" when the connector lets it go on. */
describe('the conformance table at the Request core', () => {
  const connector = createWebConnector({ waitingRoom: WAITING_ROOM, room: DOORS.room, secret: SECRET, protect: DOORS.protect });

  test.each(casesFor('request'))('%s', async (_name, test) => {
    const answer = await connector.handle(fetchRequestOf(test, await passCookies(test, DOORS.room)));
    const text = answer ? await answer.text() : '';
    const outcome = connectorOutcome({
      ran: answer === undefined,
      status: answer?.status ?? 200,
      location: answer?.headers.get('location'),
      contentType: answer?.headers.get('content-type'),
      json: text.startsWith('{') ? JSON.parse(text) : undefined,
    });
    expect({ case: test.name, outcome }).toEqual({ case: test.name, outcome: expected(test, 'request') });
    expectVisitorCookie(test, answer?.headers.getSetCookie() ?? []);
  });
});
