import { createWebConnector } from '@waiting-room/connector';
import { casesFor, DOORS, expected } from './table';
import { expectVisitorCookie, FEED_UNREAD, runFetchDoor, SECRET, WAITING_ROOM } from './support';

/** The `Request` core in Node: each case as a fetch Request, the site "running" when the connector lets it go on. */
describe('the conformance table at the Request core', () => {
  const connector = createWebConnector({ waitingRoom: WAITING_ROOM, room: DOORS.room, secret: SECRET, protect: DOORS.protect, log: FEED_UNREAD });

  test.each(casesFor('request'))('%s', async (_name, test) => {
    const { outcome, setCookies } = await runFetchDoor(test, DOORS.room, (request) => connector.handle(request));
    expect({ case: test.name, outcome }).toEqual({ case: test.name, outcome: expected(test, 'request') });
    expectVisitorCookie(test, setCookies);
  });
});
