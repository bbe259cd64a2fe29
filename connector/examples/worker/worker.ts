import { createWorker, type WaitingRoomEnv } from '@waiting-room/connector/worker';

/** The bindings of wrangler.toml, and the secret put with `wrangler secret put WAITING_ROOM_PASS_SECRET`. */
interface Env extends WaitingRoomEnv {
  /** Where the site is, when the Worker does not run on a route in front of it: e.g. `https://origin.shop.example.com`. */
  readonly ORIGIN_URL?: string;
}

/**
 * The paths of WAITING_ROOM_PROTECT need a pass from the waiting room (WAITING_ROOM_URL, room
 * WAITING_ROOM_ROOM); every other request, and every admitted one, goes on to the site. The
 * site ends a visitor's admission by answering with the header `Waiting-Room-Command: revoke`.
 */
export default createWorker<Env>(
  {},
  {
    origin(request, env) {
      if (!env.ORIGIN_URL) return fetch(request);
      // The same path and query, at the origin's scheme and host.
      const url = new URL(request.url);
      const origin = new URL(env.ORIGIN_URL);
      url.protocol = origin.protocol;
      url.host = origin.host;
      return fetch(new Request(url, request));
    },
  },
);
