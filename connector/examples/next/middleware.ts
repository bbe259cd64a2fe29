import { waitingRoom } from '@waiting-room/connector/next';

/**
 * Sends visitors of /checkout without a valid pass to wait in the room `shop`; every other
 * request goes on to the app. WAITING_ROOM_URL is the waiting room's public address, PASS_SECRET
 * the secret it signs passes with; both are read when `next start` runs, not at build time.
 */
export const middleware = waitingRoom({
  waitingRoom: process.env.WAITING_ROOM_URL!,
  room: 'shop',
  secret: process.env.PASS_SECRET!,
  protect: ['/checkout'],
});

// Every page runs the middleware (the build's own files aside): `protect` decides what is
// protected, as at every door, and a path matcher would miss `/Checkout` or `/checkout.json`.
export const config = { matcher: ['/((?!_next/static|_next/image|favicon.ico).*)'] };
