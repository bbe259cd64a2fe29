/**
 * `@waiting-room/streams/contract`: what a waiting-room server, its page and any other client
 * share — the page config's type and its validator, the routes, the channel and event names,
 * the uuid pattern, the queue_info answer and the spec's constants. It imports nothing, so that
 * a server, a page or any other client can take it alone.
 */
export { ERROR_REPORTING, REALTIME, TIMINGS, type Timings } from './constants.js';
export { AUTH_ENDPOINT, CHANNELS, CONFIG_ELEMENT_ID, HELD_HEADER, MOVED_AWAY, ROUTES, UNKNOWN_UUID } from './names.js';
export {
  MAX_POSITION,
  METHODS,
  type AltchaChallenge,
  type ErrorReportingSettings,
  type LanguageJson,
  type EventFacts,
  type EventFactsJson,
  type Method,
  type PageConfig,
  type PageConfigJson,
  type Routes,
} from './page-config.js';
export { parsePageConfig, type ConfigResult } from './parse-page-config.js';
export { PENDING_STATUS, queueInfoOf, type LineMoved, type QueueInfo, type QueueOpened } from './queue-info.js';
export {
  DIGEST_PATTERN,
  drawCommitment,
  EVENT_ROUTES,
  drawOrder,
  drawTicket,
  verifyDraw,
  type DrawProblem,
  type DrawProblemCode,
  type DrawRecord,
  type DrawVerdict,
} from './draw.js';
export { MAX_MESSAGE_LENGTH, messageTextFor, newerMessage, roomMessageOf, type RoomMessageJson } from './room-message.js';
export { originOf, toSameOriginPath } from './same-origin-path.js';
export { isUuid, UUID_PATTERN } from './uuid.js';
export { LANGUAGE_COOKIE, translator, type Message, type MessageValues, type Messages, type PluralCategory, type Translate } from './messages.js';
