import { waitingRoom } from '@waiting-room/connector/next';

/**
 * Sends visitors of /checkout without a valid pass to wait in the room `shop`; every other
 * request goes on to the app. The secret is the waiting room's PASS_SECRET.
 */
export const middleware = waitingRoom({
  waitingRoom: process.env.WAITING_ROOM_URL!,
  room: 'shop',
  secret: process.env.PASS_SECRET!,
  protect: ['/checkout'],
});

// Only the protected pages run the middleware.
export const config = { matcher: ['/checkout/:path*'] };
