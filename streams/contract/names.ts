/**
 * The names a server, its page and any other client must spell alike: routes, channels, events,
 * the config element and the error code of a lost place.
 */

/**
 * The named routes the page calls (spec section 7), at the paths a waiting-room server serves
 * them by default. A config carries the routes to call, so a server may serve them elsewhere;
 * queue_info's path has `{uuid}` where the visitor's uuid goes.
 */
export const ROUTES = { queue_request: '/queue/request', queue_info: '/queue/info/{uuid}' } as const;

/**
 * Where a page asks for a private channel's authorization (pusher-js's own default path, the
 * specification's): what `parsePageConfig` gives a config without `realtime.authEndpoint`.
 */
export const AUTH_ENDPOINT = '/pusher/auth';

/**
 * The header on every answer by which the gateway holds a request (`Waiting-Room: held`), whatever
 * its status: 503 by default, or 200, 202 or 429 where a room's clients need it (QUEUEING_STATUS_CODE).
 * A client tells a held answer from the site's own by it.
 */
export const HELD_HEADER = { name: 'waiting-room', value: 'held' } as const;

/** Channel and event names (spec sections 3 and 6; `queue`, `movedEvent` and `messageEvent` are an extension). */
export const CHANNELS = {
  /** Signed-in users; pusher-js requires the `private-` prefix for authorized channels. */
  user: (userId: number, uuid: string) => `private-App.User.${userId}.${uuid}`,
  client: (uuid: string) => `App.Client.${uuid}`,
  /** On the visitor's channel, with `{"uuid": "…"}`: replay the held request now. */
  releaseEvent: 'RequestUnqueud',
  /**
   * The public line-wide channel: anyone may listen, it says nothing about any one visitor. A
   * server with several lines names each other line's channel in its pages' config
   * (`realtime.queueChannel`); this one is the default.
   */
  queue: 'App.Queue',
  /** Published on the line-wide channel after each release, with `{"served": n}`. */
  movedEvent: 'QueueMoved',
  /**
   * The public channel of a scheduled event's pre-queue (an extension): every page that waits in
   * it listens there, and hears `openedEvent` at the opening.
   */
  event: (id: string) => `App.Event.${id}`,
  /**
   * Published on the line-wide channel when the operator sets or clears the room's message, with
   * a `RoomMessageJson` (an extension, since 1.6.0).
   */
  messageEvent: 'QueueMessage',
  /** Published on `event(id)` once the event has opened (its pre-queue drawn), with `{"spread": ms}` (`QueueOpened`). */
  openedEvent: 'QueueOpened',
  /**
   * On the visitor's channel, with `{"uuid": "…"}` (an extension, since 1.5.0): the place moved to
   * another browser, under another uuid; this page stops following it and never replays.
   */
  handedOffEvent: 'PlaceHandedOff',
} as const;

/** The id of the `<script type="application/json">` element that carries the page config. */
export const CONFIG_ELEMENT_ID = 'waiting-room-config';

/**
 * The error code (`{"error": {"code": …}}`) of a 404 from queue_info or queue_request when the
 * server does not know the uuid (any longer): the place in line is lost, not the call.
 */
export const UNKNOWN_UUID = 'unknown_uuid';

/**
 * The error code of a 410 from queue_info (an extension, since 1.5.0) when the uuid is that of a
 * place moved to another browser: this page's place goes on there, not here.
 */
export const MOVED_AWAY = 'place_moved';
