import { HELD_HEADER, parsePageConfig, type PageConfig } from '@waiting-room/streams/contract';
import { WaitingRoomError } from './errors';

/** A request the gateway held: its page config, and the origin its routes are on. */
export interface HeldAnswer {
  readonly config: PageConfig;
  /** The gateway's origin (`https://shop.example`): the config's routes are paths on it. */
  readonly origin: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value == 'object' && value !== null;

/**
 * Reads an answer as the gateway's "held" (docs/gateway.md): a JSON body that is a page config with a
 * `queue.uuid`, answered 503, or with any status under `HELD_HEADER` (a room's QUEUEING_STATUS_CODE).
 * Any other answer, a 503 of the site's own included, is not one: null.
 * `requestUrl` is where the request went, for an answer that does not say (`response.url` empty).
 * The answer itself is left unread (a clone is read), so that it can still be handed back as it is.
 *
 * Throws a `WaitingRoomError` 'bad_config' when the body is the waiting room's but its config
 * is malformed: waiting with it would fail later, and less clearly.
 */
export async function readHeldAnswer(response: Response, requestUrl: string): Promise<HeldAnswer | null> {
  const marked = response.headers.get(HELD_HEADER.name) == HELD_HEADER.value;
  if ((response.status != 503 && !marked) || !/\bjson\b/i.test(response.headers.get('content-type') ?? '')) return null;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => null);
  if (!isObject(body) || !isObject(body.queue) || typeof body.queue.uuid != 'string') return null;
  const origin = new URL(response.url || requestUrl).origin;
  const result = parsePageConfig(body, origin);
  if (!result.ok) throw new WaitingRoomError('bad_config', `The waiting room's answer is malformed: ${result.problems.join('; ')}`);
  return { config: result.config, origin };
}
