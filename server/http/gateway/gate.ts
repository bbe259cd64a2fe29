import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../domain/clock';
import type { ServerConfig } from '../../process/config';
import { HttpError } from '../errors';
import { bypassTest, isOwnPath } from '../../domain/protection';
import { clientOf } from '@waiting-room/connector/core/client';
import { GATEWAY, readRequest, type DoorRequest } from '@waiting-room/connector/core/door';
import { originOf } from '../request-origin';
import { requestTarget } from '../target';
import { HELD_HEADER, type PageConfigJson } from '@waiting-room/streams/contract';
import { pageConfigFor } from '../page-config';
import { queueInfoPreload, type WaitingPage } from '../page';
import { replayFormUuid, takeReplay } from '../replay';
import { readSession, startSession, unsavedSession, type Session } from '../session';
import type { Room, Rooms } from '../../domain/rooms';
import type { PassIssuer } from '../pass';
import { setPass } from './pass-header';
import type { HeldRequest, HoldOptions } from '../../store/types';
import { watchOrigin } from '../admission-watch';
import { addressKey } from '../../domain/bot-check/address';
import { CHALLENGE_LIFETIME_MS, type BotChallenges } from '../../domain/bot-check/challenge';
import { BYPASS_HEADER, hasValidBypass } from './bypass';
import { isCrossSite, mayLackSession, mayReplaceHeld } from './cross-site';
import { heldBody, readBody, type HeldBodyTally } from './held-body';
import type { HeldBodyBudget } from './held-body-budget';
import type { Origin } from './origin';
import { pagePolicy } from '../security-headers';

/** A session as the gate sees it: `unsaved` when it lives for this request only. */
export type GateSession = Session & { readonly unsaved?: true };

export interface GateOptions {
  readonly config: ServerConfig;
  readonly rooms: Rooms;
  readonly clock: Clock;
  readonly page: WaitingPage;
  /** The rooms' own pages, by room name (the others show `page`). */
  readonly roomPages?: ReadonlyMap<string, WaitingPage>;
  readonly origin: Origin;
  /** Counts the bodies held and refused. */
  readonly heldBodies: HeldBodyTally;
  /** Bounds what held bodies take, in all and per address. */
  readonly bodyBudget: HeldBodyBudget;
  /** Issues the bot check's challenges. */
  readonly challenges: BotChallenges;
  /** The port this instance listens on (known once listening). */
  readonly port: () => number;
  /** Signs the passes admitted visitors get (PASS_SECRET set); none without. */
  readonly passes?: PassIssuer;
  /**
   * Who may replace a held request: the site's own origin (the gateway, whose held requests the
   * origin gets with the visitor's cookies), or any page of the same site (the connectors' enter
   * route, whose held request is only its own address, sent from the site's other hosts).
   */
  readonly replaceHeldFrom?: 'origin' | 'site';
}

/**
 * The gate in front of the origin, run before a request is forwarded: requests outside the
 * protected prefixes, under a bypass prefix or with a valid signed bypass stream through at
 * once. A protected one passes when its session is admitted (or can be); the page's replay form
 * sends the held request to the origin, once; anything else takes or keeps the session's place
 * and is answered with the waiting page, or for API clients a 503 with the page's config.
 */
export function createGate(options: GateOptions): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  const { config, rooms, clock, origin } = options;
  const bypasses = config.gateway.bypass.length > 0 ? bypassTest(config.gateway.bypass) : () => false;
  const protects = (path: string) => rooms.forPath(path) !== undefined && !bypasses(path);
  const holdOrAdmit = createRoomGate(options);

  return async (request, reply) => {
    const { path, target } = requestTarget(request);
    // The waiting room's own paths are never the origin's, whatever the method or the rest:
    // a 404, or a 405 naming the methods its route takes.
    if (isOwnPath(path)) return reply.callNotFound();
    // The doors' one decision (connector/core/door.ts): open (not protected, a real CORS
    // preflight), refused (a method the gateway cannot hold and replay: one could reach a
    // handler that takes every verb without waiting), or protected.
    const reading = readRequest(doorRequestOf(request, target), protects, GATEWAY);
    if (reading.kind === 'open') return undefined;
    if (hasValidBypass(request.headers[BYPASS_HEADER], config.gateway.bypassSecret, clock.now())) return undefined;
    if (reading.kind === 'refused') throw new HttpError(reading.status, reading.code, reading.message, reading.headers);
    const room = rooms.forPath(path)!;
    const { store, admission } = room;
    const session = sessionFor(request, reply);
    const bytes = await bufferBody(request, config.gateway.heldBodyLimit).catch((error: unknown) => {
      if (error instanceof HttpError && error.status === 413) options.heldBodies.refused();
      throw error;
    });
    if (bytes !== undefined && request.method === 'POST') {
      const form = replayFormUuid(request.headers['content-type'], bytes);
      const held =
        form &&
        (await takeReplay(request, session, form, store, {
          releaseAgain: (uuid) => room.releases.releaseAgain(uuid),
          onTaken: (entry) => void room.report.replayed(entry),
        }));
      if (held) {
        options.bodyBudget.giveBack(room.name, session.id);
        watchOrigin(request, admission.signals);
        return origin.replay(request, reply, held);
      }
    }
    return holdOrAdmit(request, reply, room, session, bytes, async () => {
      watchOrigin(request, admission.signals);
      // The origin may check who let the visitor in, without asking the waiting room.
      if (options.passes) setPass(request, await options.passes.issue(room, session.id, session.id, clock.now()));
    });
  };
}

/** What a room's gate does with a visitor once admitted: the request goes on after it. */
export type OnAdmitted = () => Promise<void> | void;

/**
 * A room's gate for one request: lets the session through (calling `admitted`, then answering
 * nothing) when a scheduled event passes everyone or it is admitted or can be; otherwise takes or
 * keeps its place and answers with the waiting page, or for API clients a held answer.
 */
export function createRoomGate(
  options: Omit<GateOptions, 'origin'>,
): (request: FastifyRequest, reply: FastifyReply, room: Room, session: GateSession, bytes: Buffer | undefined, admitted: OnAdmitted) => Promise<unknown> {
  const { config, clock } = options;
  // Each page with its policy, which names its inline styles and scripts.
  const pageOf = (page: WaitingPage) => ({ page, policy: pagePolicy(page.styles, page.scripts) });
  const defaultPage = pageOf(options.page);
  const roomPages = new Map([...(options.roomPages ?? [])].map(([room, page]) => [room, pageOf(page)]));

  return async (request, reply, room, session, bytes, onAdmitted) => {
    const { store } = room;
    const now = clock.now();
    // A scheduled event may hold everyone (its pre-queue), let everyone through, or close the sale.
    const scheduled = await room.events.admission(now);
    const admitted = async () => {
      await onAdmitted();
      return undefined;
    };
    if (scheduled === 'pass') return admitted();
    if (scheduled === 'closed') {
      // Those already let in still pass; nobody new does.
      if (await store.admit(session.id, now, { ...room.limits, activeLimit: 0 })) return admitted();
      throw new HttpError(403, 'sale_closed', 'The sale is closed: nobody new is let in.');
    }
    const takesNoPlace = request.method === 'HEAD' || request.headers.upgrade !== undefined || isSubresource(request);
    // A request with a body is admitted apart, so that an admitted session's body never goes to the store.
    if ((takesNoPlace || session.unsaved || bytes !== undefined) && scheduled === 'line' && (await store.admit(session.id, now, room.limits)))
      return admitted();
    if (takesNoPlace) {
      // None can be replayed, and none may replace the request the visitor waits for (an image
      // of another tab, a favicon): "not now", without taking a place.
      return reply.code(503).header('retry-after', '60').header('cache-control', 'no-store').send();
    }
    if (session.unsaved) {
      // Another site's request that cannot show whose it is: it takes no place, and its cookie
      // would replace the visitor's (docs/security.md).
      throw new HttpError(403, 'cross_site_request', 'A request sent by another site cannot take a place in line: open this site itself.');
    }
    // Admitted, or held with its place, in one call of the store. Past PLACES_PER_ADDRESS, the
    // store throws and the visitor gets 429 (errors.ts). Only the site's own origin replaces the
    // request a place holds: others see the place again. A body is counted against the held
    // bodies' bounds before it goes to the store (held-body-budget.ts).
    const limits = scheduled === 'line' && bytes === undefined ? room.limits : undefined;
    const heldRequest = heldRequestOf(request, bytes);
    const owner = { room: room.name, session: session.id, address: addressKey(request.ip) };
    const arrival = await options.bodyBudget.hold(
      owner,
      heldRequest.body,
      store,
      () =>
        store.arrive(session.id, session.userId, heldRequest, now, limits, {
          ...holdOptions(request, config, room.botCheck.mode(now) === 'pow', now),
          ...(!(options.replaceHeldFrom === 'site' ? !isCrossSite(request) : mayReplaceHeld(request)) && { keepRequest: true }),
        }),
      // Admitted holds nothing; a request with a body never is here (it was admitted apart above).
      (arrived) => (arrived.admitted ? undefined : arrived.place.entry),
    );
    if (arrival.admitted) return admitted();
    if (bytes !== undefined) options.heldBodies.held(bytes.length);
    const { place } = arrival;
    const held = place.entry;
    // A place new at this request enters the report (a pending one, once its bot check is solved).
    if (held.heldAt === now) void room.report.arrived(held, place.position, place.served, now);
    // A pending place gets the challenge that lets it in line.
    const altcha =
      held.state === 'pending' ? await options.challenges.issue({ uuid: held.uuid, room: room.name }, await room.botCheck.difficulty()) : undefined;
    const language = request.server.languages.choose({ headers: request.headers, roomLocale: room.locale });
    const facts = room.events.pageFacts(held, place.position, now);
    const pageConfig = pageConfigFor(
      held,
      facts.position,
      session,
      config,
      originOf(request, config.host),
      options.port(),
      room,
      language,
      facts.event,
      altcha,
      await room.message.shown(),
    );
    if (isApiClient(request)) {
      const status = config.rooms.find(({ name }) => name === room.name)?.queueingStatusCode ?? 503;
      return sendHeldJson(reply, pageConfig, room.configured.abandonMs / 1000, status);
    }
    const { page, policy } = roomPages.get(room.name) ?? defaultPage;
    return sendWaitingPage(reply, page.render(pageConfig, language, queueInfoPreload(pageConfig)), policy);
  };
}

/**
 * The request's session; or a new one, its cookie set, unless the browser may have kept the
 * visitor's cookie from this request (another site sent it): then one for this request only.
 */
export function sessionFor(request: FastifyRequest, reply: FastifyReply): GateSession {
  const session = readSession(request);
  if (session) return session;
  return mayLackSession(request) ? { ...unsavedSession(), unsaved: true } : startSession(request, reply, { userId: 0 });
}

/**
 * How a held request takes a new place: counted against its client address when PLACES_PER_ADDRESS
 * is set (with TRUST_PROXY, the address the proxy in front says: `request.ip`), and pending its bot
 * check for as long as a challenge lasts when the room's check is on.
 */
function holdOptions(request: FastifyRequest, config: ServerConfig, checked: boolean, now: number): HoldOptions {
  const { placesPerAddress } = config.botCheck;
  return {
    ...(placesPerAddress > 0 && { address: addressKey(request.ip), placesPerAddress }),
    ...(checked && { pendingUntil: now + CHALLENGE_LIFETIME_MS }),
  };
}

/**
 * A protected request's body, read whole (bounded) so that it can be held or replayed; the
 * request goes on with the same bytes. Undefined when it has none.
 */
async function bufferBody(request: FastifyRequest, limit: number): Promise<Buffer | undefined> {
  if (!(request.body instanceof Readable)) return undefined;
  const bytes = await readBody(request.body, request.headers['content-length'], limit);
  request.body = Readable.from([bytes]);
  return bytes;
}

/** The request as it will be replayed: verb, normalized path with query, body bytes, and whence it came. */
export function heldRequestOf(request: FastifyRequest, bytes: Buffer | undefined): HeldRequest {
  const method = request.method.toUpperCase();
  const uri = requestTarget(request).target;
  const crossSite = method !== 'GET' && isCrossSite(request) ? { crossSite: true } : {};
  if (method === 'GET' || bytes === undefined) return { method, uri, ...crossSite };
  const contentType = request.headers['content-type'] ?? 'application/octet-stream';
  return { method, uri, body: heldBody(contentType, bytes), ...crossSite };
}

/** Kinds of request a browser says it sends that a visitor may wait for: a page, a frame, a fetch. */
const WAITABLE_DESTINATIONS = new Set(['document', 'iframe', 'frame', 'empty']);

/** A browser's request for an image, a script, a style sheet…: part of a page, not a page. */
function isSubresource(request: FastifyRequest): boolean {
  const destination = request.headers['sec-fetch-dest'];
  return typeof destination === 'string' && !WAITABLE_DESTINATIONS.has(destination.toLowerCase());
}

/** A request that is not a browser's navigation, by the doors' one rule (connector/core/client.ts): it cannot show a page. */
export function isApiClient(request: FastifyRequest): boolean {
  return clientOf(headerOf(request)) === 'api';
}

/** The request as the doors' core reads it: the target the router routed (normalized: a fixed point of the core's reading). */
function doorRequestOf(request: FastifyRequest, target: string): DoorRequest {
  return { method: request.method, target, header: headerOf(request) };
}

function headerOf(request: FastifyRequest): DoorRequest['header'] {
  return (name) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

/**
 * "Held": a 503 (or the room's QUEUEING_STATUS_CODE) whose body is the config the waiting page would have got, so any client can
 * wait in line with the same calls (queue_info, queue_request, the release event), then send
 * its request again. Retry-After grows with the place in line (a second per place, from 2 s),
 * and stays well inside the time after which a silent visitor loses the place, since each
 * retry also says "still here".
 */
function sendHeldJson(reply: FastifyReply, pageConfig: PageConfigJson, awaySeconds: number, status: number): FastifyReply {
  const ceiling = Math.max(1, Math.min(60, Math.floor(awaySeconds / 3)));
  const retryAfter = Math.min(ceiling, Math.max(2, pageConfig.queue.position));
  return reply
    .code(status)
    .header(HELD_HEADER.name, HELD_HEADER.value)
    .header('retry-after', String(retryAfter))
    .header('cache-control', 'no-store')
    .header('vary', 'Cookie, Accept, Accept-Language, Sec-Fetch-Mode')
    .type('application/json; charset=utf-8')
    .send(pageConfig);
}

/**
 * The waiting page. Its address (the held one, with its query) never leaves the site as a
 * referrer, yet its replay form still says it comes from the site: `no-referrer` would send
 * `Origin: null`, which Django's and Rails' CSRF checks refuse.
 */
/** Sends a waiting page with its policy, never cached. */
export function sendWaitingPage(reply: FastifyReply, html: string, policy: string): FastifyReply {
  return reply
    .code(200)
    .header(HELD_HEADER.name, HELD_HEADER.value)
    .header('content-security-policy', policy)
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-store')
    .header('vary', 'Cookie, Accept, Accept-Language, Sec-Fetch-Mode')
    .header('x-robots-tag', 'noindex')
    .type('text/html; charset=utf-8')
    .send(html);
}
