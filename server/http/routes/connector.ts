import { decodeJwt } from 'jose';
import { PASS_PARAMETER, REVOKED_ROUTE, verifyFeedToken, verifyPass } from '@waiting-room/connector';
import { ENTER_LIFETIME_SECONDS, verifyEnter } from '@waiting-room/connector/core/enter';
import { CODE_GUESSES, codeHash, normalCode } from '../../domain/codes';
import { addressKey } from '../../domain/bot-check/address';
import type { Clock } from '../../domain/clock';
import type { Room, Rooms } from '../../domain/rooms';
import type { ServerConfig } from '../../process/config';
import { HttpError } from '../errors';
import { sessionFor, type createRoomGate } from '../gateway/gate';
import { errorResponses, failsWith } from '../openapi';
import type { PassIssuer } from '../pass';
import { HANDOFF_LOOP_LIMIT, PassHandoffs } from '../pass-handoffs';
import type { SchemaTypedApp } from '../type-provider';

/** Where a connector sends a visitor to wait (`/queue/enter/<room>`), and where it revokes a pass. */
export const ENTER_ROUTE = '/queue/enter/:room';
export const REVOKE_ROUTE = '/queue/passes/revoke';

export interface ConnectorRouteOptions {
  readonly config: ServerConfig;
  readonly rooms: Rooms;
  readonly clock: Clock;
  /** A room's gate: holds the visitor, or calls `admitted` and answers nothing. */
  readonly gate: ReturnType<typeof createRoomGate>;
  /** Signs the passes; undefined without PASS_SECRET. */
  readonly passes?: PassIssuer;
  /** Told of each admission a site ended by revoking its pass. */
  readonly revoked: (room: string) => void;
}

const TAGS = ['connector'];
/** Longest target address taken: longer ones are not a page's. */
const MAX_TARGET_LENGTH = 4096;
/** Longest pass read by the revoke call: a pass is about 300 characters. */
const MAX_PASS_LENGTH = 2048;

/**
 * The connectors' side of the waiting room (docs/adopt.md). A connector sends a visitor without a
 * pass to `/queue/enter/<room>?target=…&visitor=…&at=…&sig=…`: they wait there as on any
 * protected path, and once admitted the same address sends them back to `target` with a fresh
 * pass, given to the browser the connector named. Only targets under the room's
 * `connectorOrigins` are taken, so that the route sends nobody to a site of someone else's
 * choosing; and only an enter the connector signed with PASS_SECRET (`sig` over room, visitor,
 * target and `at`), so that another page cannot have an admitted visitor carry a pass for
 * someone else's visitor id to a page of its choosing (docs/security.md).
 */
export async function connectorRoutes(app: SchemaTypedApp, options: ConnectorRouteOptions): Promise<void> {
  const { config, rooms, clock } = options;
  const secret = config.passSecret;
  const issuer = options.passes;
  const keepSlotMs = revokedSlotMs(config);
  const handoffs = new PassHandoffs();

  app.get(
    ENTER_ROUTE,
    {
      schema: {
        summary: "A connector's visitor waits here, and goes back to the site with a pass",
        tags: TAGS,
        params: { type: 'object', required: ['room'], properties: { room: { type: 'string' } } },
        querystring: {
          type: 'object',
          required: ['target', 'visitor'],
          properties: {
            target: failsWith(
              { type: 'string', maxLength: MAX_TARGET_LENGTH, description: 'The address on the site the visitor asked for.' },
              'bad_target',
              `"target" must be an address of the site, at most ${MAX_TARGET_LENGTH} characters.`,
            ),
            visitor: failsWith(
              { type: 'string', pattern: '^[A-Za-z0-9_-]{16,64}$', description: "The connector's name for the browser, which the pass is given to." },
              'bad_visitor',
              '"visitor" must be 16 to 64 letters, digits, "-" or "_".',
            ),
            at: { type: 'string', maxLength: 16, description: 'When the connector signed the address, in seconds since the epoch.' },
            sig: { type: 'string', maxLength: 64, description: "The connector's signature of room, visitor, target and `at` (PASS_SECRET)." },
            code: {
              type: 'string',
              maxLength: 64,
              description:
                'A priority code the visitor brings (docs/places.md), not signed: the code is its own proof. Applied once the visitor has a place; a wrong one counts against the bounds on wrong codes.',
            },
          },
        },
        response: {
          303: { type: 'null', description: 'Admitted: back to the target with `waiting_room_pass`.' },
          ...errorResponses(400, 403, 404, 508),
        },
      },
    },
    async (request, reply) => {
      if (!issuer) throw new HttpError(404, 'no_connector', 'This waiting room takes no connector: its PASS_SECRET is not set.');
      const room = rooms.named(request.params.room);
      const origins = config.rooms.find(({ name }) => name === room.name)?.connectorOrigins ?? [];
      const target = allowedTarget(request.query.target, origins);
      if (target === undefined) {
        // The operator's mistake more often than an attack: the log says which setting to change.
        request.log.warn(
          { room: room.name, target: originOf(request.query.target), connectorOrigins: origins },
          `a connector sent a visitor from ${originOf(request.query.target) ?? 'an address that is not one'}, which room "${room.name}" does not take: ` +
            `add the site's origin to CONNECTOR_ORIGINS (with ROOMS, to the room's connectorOrigins); scheme, host and port must match exactly (http://127.0.0.1:3000 is not http://localhost:3000)`,
        );
        throw new HttpError(400, 'target_not_allowed', "The target is not an address of this room's sites (its connectorOrigins).");
      }
      const { visitor, at, sig } = request.query;
      const claim = { room: room.name, visitor, target: request.query.target, at: Number(at) };
      if (at === undefined || sig === undefined || !/^\d{1,12}$/.test(at) || !(await verifyEnter(claim, sig, secret!, clock.now()))) {
        if (sig !== undefined && isRecent(claim.at, clock.now())) {
          // A fresh address from an allowed site that does not verify: most often the site's
          // connector was given another secret, which the operator can only learn from here.
          request.log.warn(
            { room: room.name, target: target.origin },
            `the site at ${target.origin} sent a visitor with an enter address signed with another secret than PASS_SECRET: ` +
              `give its connector the waiting room's PASS_SECRET (or check its clock); the visitor is shown a page instead of a pass`,
          );
        }
        throw new HttpError(
          403,
          'unsigned_enter',
          "This address was not made by the site's connector, or is more than a day old: go back to the site, which sends you here again.",
        );
      }
      const session = sessionFor(request, reply);
      let admitted = false;
      const answered = await options.gate(request, reply, room, session, undefined, () => {
        admitted = true;
      });
      if (!admitted) {
        const code = request.query.code === undefined ? undefined : normalCode(request.query.code);
        if (code !== undefined) {
          const used = await room.store.useCode(session.id, codeHash(room.name, code), clock.now(), { address: addressKey(request.ip), ...CODE_GUESSES });
          request.log.info({ room: room.name, outcome: used.outcome }, 'a priority code brought in the enter address');
        }
        return answered;
      }
      const now = clock.now();
      if (handoffs.hand(`${room.name}\n${session.id}\n${request.query.visitor}\n${target.href}`, now) > HANDOFF_LOOP_LIMIT) {
        request.log.warn(
          { room: room.name, target: target.origin },
          `the site at ${target.origin} refused the pass handed to the same visitor ${HANDOFF_LOOP_LIMIT} times in a row and sent them back each time: ` +
            `its connector probably checks passes with another secret than PASS_SECRET (or its clock is wrong); the visitor is shown a page instead of a redirect loop`,
        );
        throw new HttpError(
          508,
          'pass_refused',
          'The site refused the pass the waiting room handed it, again and again: it probably checks passes with another secret than PASS_SECRET.',
        );
      }
      target.searchParams.set(PASS_PARAMETER, await issuer.issue(room, request.query.visitor, session.id, now, { current: true }));
      // The pass is in the address for one hop only: never sent on as a referrer.
      return reply.code(303).header('location', target.href).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send();
    },
  );

  app.post(
    REVOKE_ROUTE,
    {
      schema: {
        summary: "Ends the admission a pass gives (the site's revoke)",
        description: 'The pass itself is the proof: only the site (which shares PASS_SECRET) and the visitor it was given to hold it.',
        tags: TAGS,
        body: failsWith(
          { type: 'object', required: ['pass'], properties: { pass: { type: 'string', maxLength: MAX_PASS_LENGTH } } },
          'bad_request',
          'Send {"pass": "<the pass>"} as JSON.',
        ),
        response: { 200: { type: 'object', properties: { revoked: { type: 'boolean' } } }, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      if (secret === undefined) throw new HttpError(404, 'no_connector', 'This waiting room gives no pass: its PASS_SECRET is not set.');
      const now = clock.now();
      const room = roomOfPass(request.body.pass, rooms);
      const pass = room && (await verifyPass(request.body.pass, secret, room.name, now));
      if (!room || !pass)
        throw new HttpError(403, 'invalid_pass', 'This pass is not one of this waiting room: forged, altered, expired or of an unknown room.');
      const revoked = await room.store.revoke(pass.session, now, keepSlotMs);
      if (revoked) {
        options.revoked(room.name);
        void room.report.revoked();
      }
      return { revoked };
    },
  );

  app.get(
    REVOKED_ROUTE,
    {
      schema: {
        summary: 'The revocation feed: the admissions sites revoked since a cursor, for the connectors to refuse their passes',
        description:
          'Signed with PASS_SECRET: `Authorization: Bearer <a JWT, HS256, iss waiting-room-connector, aud the room, iat, exp>`. Each revocation refuses the passes of `session` ending at `expiresAt` (s) or before; each is listed until then.',
        tags: TAGS,
        querystring: {
          type: 'object',
          required: ['room'],
          properties: {
            room: { type: 'string', maxLength: 32 },
            // A room split across shards answers one cursor a part (PartedLine.revocations).
            since: { type: 'string', maxLength: 4000, description: 'The cursor of the previous answer; absent: every revocation in force.' },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              revoked: {
                type: 'array',
                items: { type: 'object', properties: { session: { type: 'string' }, expiresAt: { type: 'integer' } } },
              },
              cursor: { type: 'string' },
              more: { type: 'boolean' },
              refreshSeconds: { type: 'integer', description: 'PASS_REVOCATION_SECONDS: read the feed again at least this often.' },
            },
          },
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      if (secret === undefined) throw new HttpError(404, 'no_connector', 'This waiting room gives no pass: its PASS_SECRET is not set.');
      const room = rooms.named(request.query.room);
      const now = clock.now();
      const token = /^Bearer ([A-Za-z0-9._-]{1,2048})$/.exec(request.headers.authorization ?? '')?.[1];
      if (token === undefined || !(await verifyFeedToken(token, secret, room.name, now))) {
        throw new HttpError(401, 'invalid_token', "Read the feed with a token signed with the room's PASS_SECRET (the connector does it).", {
          'www-authenticate': 'Bearer',
        });
      }
      const read = await room.store.revocations(request.query.since, now);
      reply.header('cache-control', 'no-store');
      return { ...read, refreshSeconds: config.passRevocationSeconds };
    },
  );
}

/**
 * How long a revoked admission's slot stays counted: as long as a connector may still honour its
 * pass (PASS_REVOCATION_SECONDS) when passes are signed, and not at all when none is.
 */
export function revokedSlotMs(config: Pick<ServerConfig, 'passSecret' | 'passRevocationSeconds'>): number {
  return config.passSecret === undefined ? 0 : config.passRevocationSeconds * 1000;
}

/** `target` as a URL when it is an http(s) address under one of `origins`, without credentials; undefined otherwise. */
function allowedTarget(target: string, origins: readonly string[]): URL | undefined {
  let url: URL | undefined;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  // `blob:https://shop.example/…` has the site's origin too: only http(s) addresses are pages.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (!origins.includes(url.origin) || url.username !== '' || url.password !== '') return undefined;
  url.hash = '';
  return url;
}

/** True when `at` (seconds) is a time a connector could have signed an address at, now (ms). */
function isRecent(at: number, now: number): boolean {
  const seconds = now / 1000;
  return at <= seconds + 60 && at >= seconds - ENTER_LIFETIME_SECONDS;
}

/** The origin of `address`, for the log; undefined when it is not an absolute address. */
function originOf(address: string): string | undefined {
  try {
    const { origin } = new URL(address);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** The room a pass names (its `aud`, read before the signature is checked), if the server has it. */
function roomOfPass(token: string, rooms: Rooms): Room | undefined {
  try {
    const audience = decodeJwt(token).aud;
    return rooms.all.find((room) => room.name === audience);
  } catch {
    return undefined;
  }
}
