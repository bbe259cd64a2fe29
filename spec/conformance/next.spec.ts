import { NextRequest } from 'next/server';
import { waitingRoom } from '@waiting-room/connector/next';
import { casesFor, DOORS, expected } from './table';
import { connectorOutcome, expectVisitorCookie, fetchRequestOf, passCookies, SECRET, WAITING_ROOM } from './support';

/**
 * The Next.js middleware the package exports, called with a NextRequest as Next.js calls it (the
 * real build runs in spec/e2e/connector-next.spec.ts): the site "runs" when it returns nothing.
 */
describe('the conformance table at the Next.js middleware', () => {
  const middleware = waitingRoom({ waitingRoom: WAITING_ROOM, room: DOORS.room, secret: SECRET, protect: DOORS.protect });

  test.each(casesFor('next'))('%s', async (_name, test) => {
    const answer = await middleware(new NextRequest(fetchRequestOf(test, await passCookies(test, DOORS.room))));
    const text = answer ? await answer.text() : '';
    const outcome = connectorOutcome({
      ran: answer === undefined,
      status: answer?.status ?? 200,
      location: answer?.headers.get('location'),
      contentType: answer?.headers.get('content-type'),
      json: text.startsWith('{') ? JSON.parse(text) : undefined,
    });
    expect({ case: test.name, outcome }).toEqual({ case: test.name, outcome: expected(test, 'next') });
    expectVisitorCookie(test, answer?.headers.getSetCookie() ?? []);
  });
});
