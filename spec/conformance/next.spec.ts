import { NextRequest } from 'next/server';
import { waitingRoom } from '@waiting-room/connector/next';
import { casesFor, DOORS, expected } from './table';
import { expectVisitorCookie, FEED_UNREAD, runFetchDoor, SECRET, WAITING_ROOM } from './support';

/**
 * The Next.js middleware the package exports, called with a NextRequest as Next.js calls it (the
 * real build runs in spec/e2e/connector-next.spec.ts): the site "runs" when it returns nothing.
 */
describe('the conformance table at the Next.js middleware', () => {
  const middleware = waitingRoom({ waitingRoom: WAITING_ROOM, room: DOORS.room, secret: SECRET, protect: DOORS.protect, log: FEED_UNREAD });

  test.each(casesFor('next'))('%s', async (_name, test) => {
    const { outcome, setCookies } = await runFetchDoor(test, DOORS.room, (request) => middleware(new NextRequest(request)));
    expect({ case: test.name, outcome }).toEqual({ case: test.name, outcome: expected(test, 'next') });
    expectVisitorCookie(test, setCookies);
  });
});
