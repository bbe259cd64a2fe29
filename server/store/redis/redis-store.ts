import { randomInt, randomUUID } from 'node:crypto';
import type { DropEvent } from '../../domain/events/event';
import type { DrawKey, DrawStep, EventState, StoredEvents, UnkeyedEntrants } from '../event-store';
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_CONNECT_WAIT_MS,
  DEFAULT_PREFIX,
  closeRedis,
  commandTimeoutOf,
  connectRedis,
  duplicateRedis,
  readyWithin,
  type RedisClient,
  type RedisTarget,
} from '../../redis/connection';
import { PlacesPerAddressError, StoreUnavailableError } from '../errors';

/** Most arrivals in one script call: a held request may be 64 KB (`bodyLimit`), and a call stays short. */
export const MAX_ARRIVALS = 32;

/** Codes kept by one script call (`addCodes`). */
const CODES_PER_CALL = 500;

/** use-code.lua's outcomes, by number. */
const CODE_OUTCOMES = ['no-place', 'not-waiting', 'ahead', 'limited', 'moved', 'wrong'] as const;
import { decodeEntry, decodeRequest, encodeRequest } from './codec';
import { uuidInPart } from '../../domain/lanes';
import { HANDOFF_RECORD_MS, MOVED_MARK_MS, type HandoffOffer, type HandoffOutcome } from '../handoff';
import { Deadlines } from './deadline';
import { BLOCK_MS, BROKEN, LineCopy } from './line-copy';
import { CallBatch } from './call-batch';
import { MAX_BATCH, PositionBatch } from './position-batch';
import { RedisReport } from './report';
import { SeenMarks } from './seen-marks';
import {
  DEADLINE_PASSED,
  ARRIVALS_LOGGED_MS,
  SCRIPT_KEYS,
  defineStoreCommands,
  type Answer,
  type ArrivalArgs,
  type ArriveReply,
  type CommandArgs,
  type CommandName,
  type CommandReply,
  type EventStateReply,
  type LimitsReply,
  type MessageReply,
  type ReleaseReply,
} from './commands';
import type {
  AdmissionLimits,
  Arrival,
  Entry,
  EntryState,
  HeldRequest,
  HoldOptions,
  LimitChange,
  LimitOverrides,
  MessageTexts,
  PlaceInLine,
  Position,
  QueueStore,
  RecentReleases,
  Release,
  ReleasePolicy,
  Revocation,
  RevocationsRead,
  Stats,
  StoredMessage,
  CodeCounts,
  CodeGuessLimits,
  CodeUse,
} from '../types';
import { REVOCATIONS_PER_READ, revocationCursor, revocationsAfter } from '../types';

export interface RedisStoreOptions {
  /** Put before every key, so that several rooms or test runs can share one Redis. Default `wr:`. */
  readonly prefix?: string;
  /** Longest wait for one Redis reply before the call fails, in ms. Default 1000. */
  readonly commandTimeoutMs?: number;
  /** Longest wait for a connection under way (at start) before the call fails, in ms. Default 1000. */
  readonly connectWaitMs?: number;
  /**
   * Answer queue_info's polls from this instance's own copy of the line (`LineCopy`, about 120 bytes
   * a waiting place), kept up to date from Redis on a connection of its own, rather than with a
   * script call each. Default true; false sends every poll to Redis (`PositionBatch`).
   */
  readonly localLine?: boolean;
  /**
   * Replicas that must hold a replay's mark (`WAIT`) before the request goes to the origin
   * (REDIS_REPLAY_REPLICAS). Default 0: the mark is written on the primary alone, and a failover
   * before it reached a replica may let the request be replayed once more (docs/durability.md).
   */
  readonly replayReplicas?: number;
  /**
   * How long a waiting place may be silent before the sweep drops it (the room's AWAY_SECONDS),
   * in ms: the polls the copy answers then mark each place at most about every twentieth of it
   * (`SeenMarks`). Undefined: every poll is marked.
   */
  readonly awayMs?: number;
  /**
   * This store is part `index` of `count` of one room's line split across shards (`PartedLine`):
   * its prefix is the part's (`partPrefix`), and the uuids of its places fall in it (`uuidInPart`).
   */
  readonly part?: { readonly index: number; readonly count: number };
}

/** Longest wait for the replicas to acknowledge a replay's mark, in ms (below the command timeout). */
export const REPLAY_ACK_MS = 250;

/** Uuids read in one call when an event's draw is read back (`entrantsOf`): a few ms of Redis each. */
const ORDER_PAGE = 20_000;

/**
 * The queue in Redis, shared by every instance that uses the same Redis and prefix. Each
 * method is one round trip: one of the store's commands, a Lua script that Redis runs atomically
 * (see `commands.ts`),
 * but for queue_info's polls, which the instance's copy of the line answers when it can
 * (`LineCopy`).
 *
 * When Redis is unreachable, too slow, or the store is closed, methods reject with
 * `StoreUnavailableError` within about `commandTimeoutMs`; once Redis answers again the same
 * store works again by itself (the client reconnects and reloads the scripts).
 */
export class RedisStore implements QueueStore {
  private readonly client: RedisClient;
  private readonly ownsClient: boolean;
  private readonly keys: readonly string[];
  /** The prefix of its keys. */
  readonly prefix: string;
  private readonly connectWaitMs: number;
  private readonly deadlines: Deadlines;
  private readonly onReady = () => this.deadlines.reset();
  /** The store's connection broke: Redis may be another one when it comes back (`LineCopy.disconnected`). */
  private readonly onBroken = () => this.lineCopy?.disconnected();
  private upgrade?: Promise<unknown>;
  /** Set once the line of a previous version has been looked for (`upgrade-list-line.lua`). */
  private upgradeDone = false;
  private closed = false;
  /** Marking a visitor seen late does no harm: these calls carry no deadline. */
  private readonly positions = new PositionBatch((pairs) => this.run('waitingRoomPositions', pairs, false));
  /**
   * Counts for places of another part of a line split across shards (`countBefore`), asked
   * together: every arrival there asks one. A script, not MULTI: on a Cluster, ioredis's MULTI
   * beside a failover's redirections gave replies to the wrong calls.
   */
  private readonly counts = new CallBatch<number, { readonly before: number; readonly served: number }>(async (tickets) => {
    const reply = await this.run('waitingRoomPartedCount', tickets, false);
    if (!Array.isArray(reply) || reply.length !== 1 + tickets.length) {
      throw new StoreUnavailableError(`Redis answered ${JSON.stringify(reply)?.slice(0, 100)} for ${tickets.length} counts.`);
    }
    return (index) => ({ before: reply[1 + index], served: reply[0] });
  }, MAX_BATCH);
  /**
   * The arrivals of one turn of the event loop go to Redis together, in the order they came: the
   * script's own cost, its deadline's check and the log's entry for their places are paid once for
   * them all (`CallBatch`). An arrival alone waits for nothing.
   */
  private readonly arrivals = new CallBatch<ArrivalArgs, ArriveReply>(async (arrivals) => {
    const replies = await this.run('waitingRoomArrive', arrivals.flat());
    return (index) => replies[index];
  }, MAX_ARRIVALS);
  private readonly localLine: boolean;
  private readonly replayReplicas: number;
  /** A new place's uuid: random, and in this store's part of the line when it is one. */
  private readonly newUuid: () => string;
  private readonly commandTimeoutMs: number;
  /** The ask for the arrivals waiting to be logged (`logArrivalsLater`). */
  private arrivalsLogged?: NodeJS.Timeout;
  /** This instance's copy of the line, made at the first poll when `localLine`. */
  private lineCopy?: LineCopy;
  private tail?: RedisClient;
  /** The polls the copy answered, marked seen in Redis late and together. */
  private readonly seenMarks: SeenMarks;
  /** The report, beside the line under its prefix (`RedisReport`). */
  private readonly report: RedisReport;

  reportArrival: QueueStore['reportArrival'] = (...args) => this.report.reportArrival(...args);
  reportReleases: QueueStore['reportReleases'] = (...args) => this.report.reportReleases(...args);
  reportReplay: QueueStore['reportReplay'] = (...args) => this.report.reportReplay(...args);
  reportCount: QueueStore['reportCount'] = (...args) => this.report.reportCount(...args);
  reportSample: QueueStore['reportSample'] = (...args) => this.report.reportSample(...args);
  reportRead: QueueStore['reportRead'] = (from, to) => this.report.reportRead(from, to);

  /**
   * `redis` is a URL (`redis://…`, `rediss://…`) or another `RedisTarget`: the store makes its own
   * client with `connectRedis` (auto-pipelined) and closes it in `close()`. On a Cluster the prefix
   * must hold a hash tag (`roomPrefix`), so that every key of the line is in one slot. Or a client made by the caller,
   * which stays theirs to close; give it `redisClientOptions` so calls fail fast.
   */
  constructor(redis: RedisTarget | RedisClient, options: RedisStoreOptions = {}) {
    const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const given = typeof redis === 'object' && 'status' in redis ? redis : undefined;
    this.ownsClient = given === undefined;
    // The polls' and the arrivals' batches are sent as they are made: each is a batch already.
    const client =
      given ??
      connectRedis(redis as RedisTarget, {
        commandTimeoutMs,
        autoPipelining: true,
        notPipelined: ['waitingRoomPositions', 'waitingRoomArrive', 'waitingRoomPartedCount'],
      });
    if (client.options.keyPrefix) {
      // The scripts name the per-visitor keys themselves, where the client's prefix never reaches.
      throw new Error('Give RedisStore a client without keyPrefix, and the prefix as its `prefix` option.');
    }
    defineStoreCommands(client);
    this.client = client;
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.keys = SCRIPT_KEYS.map((key) => this.prefix + key);
    this.report = new RedisReport(client, this.prefix);
    this.seenMarks = new SeenMarks((pairs) => this.run('waitingRoomMarkSeen', pairs, false), { awayMs: options.awayMs });
    this.connectWaitMs = options.connectWaitMs ?? DEFAULT_CONNECT_WAIT_MS;
    this.localLine = options.localLine ?? true;
    const { part } = options;
    this.newUuid = part ? () => uuidInPart(part.index, part.count) : randomUUID;
    this.replayReplicas = options.replayReplicas ?? 0;
    this.commandTimeoutMs = commandTimeoutOf(client) ?? commandTimeoutMs;
    this.deadlines = new Deadlines(client, this.commandTimeoutMs, this.keys[0]);
    // A new connection may lead to another Redis, with another clock.
    client.on('ready', this.onReady);
    for (const event of BROKEN) client.on(event, this.onBroken);
  }

  async admit(sessionId: string, now: number, limits: AdmissionLimits): Promise<boolean> {
    const admitted = await this.run('waitingRoomAdmit', [sessionId, now, limits.activeLimit, limits.sessionMs]);
    return admitted === 1;
  }

  async admittedUntil(sessionId: string, now: number): Promise<number | undefined> {
    const until = await this.client.zscore(this.keys[SCRIPT_KEYS.indexOf('admitted')], sessionId);
    return until !== null && Number(until) > now ? Number(until) : undefined;
  }

  async revoke(sessionId: string, now: number, keepSlotMs = 0): Promise<boolean> {
    return (await this.run('waitingRoomRevoke', [sessionId, now, keepSlotMs, randomUUID()])) === 1;
  }

  async revocations(since: string | undefined, now: number): Promise<RevocationsRead> {
    const [epoch] = since?.split('.') ?? [''];
    const after = revocationsAfter(since, epoch ?? '');
    const [current, last, more, flat] = await this.run('waitingRoomRevocations', [after, epoch ?? '', now, randomUUID(), REVOCATIONS_PER_READ], false);
    const revoked: Revocation[] = [];
    for (let i = 0; i < flat.length; i += 2) revoked.push({ session: flat[i], expiresAt: Number(flat[i + 1]) });
    return { revoked, cursor: revocationCursor(current, last), more: more === 1 };
  }

  async hold(sessionId: string, userId: number, request: HeldRequest, now: number, options: HoldOptions = {}): Promise<Entry> {
    const { address = '', placesPerAddress = 0, pendingUntil, keepRequest } = options;
    const pending = pendingUntil === undefined ? '' : pendingUntil;
    const keep = keepRequest ? '1' : '';
    const reply = await this.run('waitingRoomHold', [sessionId, userId, encodeRequest(request), now, this.newUuid(), address, placesPerAddress, pending, keep]);
    if (reply === 0) throw new PlacesPerAddressError(placesPerAddress);
    return decodeEntry(reply);
  }

  async arrive(
    sessionId: string,
    userId: number,
    request: HeldRequest,
    now: number,
    limits: AdmissionLimits | undefined,
    options: HoldOptions = {},
  ): Promise<Arrival> {
    const { address = '', placesPerAddress = 0, pendingUntil, keepRequest } = options;
    const reply = await this.arrivals.call([
      sessionId,
      now,
      limits ? limits.activeLimit : '',
      limits ? limits.sessionMs : 0,
      userId,
      encodeRequest(request),
      this.newUuid(),
      address,
      placesPerAddress,
      pendingUntil === undefined ? '' : pendingUntil,
      keepRequest ? '1' : '',
    ]);
    if (reply[0] === 1) return { admitted: true };
    if (reply[0] === 2) throw new PlacesPerAddressError(placesPerAddress);
    const [entry, position, served] = reply[1];
    return { admitted: false, place: { entry: decodeEntry(entry), position, served } };
  }

  async enterLine(uuid: string, now: number): Promise<EntryState | undefined> {
    return (await this.run('waitingRoomEnterLine', [uuid, now])) ?? undefined;
  }

  async dropPending(uuid: string): Promise<boolean> {
    return (await this.run('waitingRoomDropPending', [uuid])) === 1;
  }

  async get(uuid: string): Promise<Entry | undefined> {
    const reply = await this.run('waitingRoomGet', [uuid]);
    return reply ? decodeEntry(reply) : undefined;
  }

  async placeInLine(uuid: string, now: number): Promise<PlaceInLine | undefined> {
    const reply = await this.run('waitingRoomPlaceInLine', [uuid, now]);
    if (!reply) return undefined;
    const [entry, position, recent, served] = reply;
    return { entry: decodeEntry(entry), position, recentReleases: recent.map(Number), served };
  }

  /**
   * queue_info's every poll: answered from the instance's copy of the line when it can tell
   * (`LineCopy`), the place marked seen late (`SeenMarks`); otherwise those of one turn of the
   * event loop go to Redis together (`PositionBatch`). From a broken connection until the copy has
   * read the line again, Redis's answer is shown no further back than the copy held the place
   * (`LineCopy.bound`): a failover may bring back a release or a leave that positions were told from.
   */
  position(uuid: string, now: number): Promise<Position | undefined> {
    const copy = this.localLine && !this.closed ? this.copy() : undefined;
    const copied = copy?.position(uuid);
    if (copied) {
      this.seenMarks.mark(uuid, now);
      return Promise.resolve(copied);
    }
    const bound = copy?.bound(uuid);
    if (bound === undefined) return this.positions.position(uuid, now);
    return this.positions.position(uuid, now).then((answer) => (answer && answer.position > bound ? { ...answer, position: bound } : answer));
  }

  /** Whether queue_info's polls are answered from this instance's copy of the line now (loaded and confirmed). */
  get answersFromCopy(): boolean {
    return this.lineCopy?.ready ?? false;
  }

  /** The copy of the line, started at the first poll: a store that answers none holds none. */
  private copy(): LineCopy {
    if (this.lineCopy) return this.lineCopy;
    // Its reads block for up to BLOCK_MS: a connection of its own, with room for that in its timeout.
    const tail = duplicateRedis(this.client, { commandTimeout: BLOCK_MS + this.commandTimeoutMs, enableAutoPipelining: false });
    this.tail = tail;
    const key = (name: string) => this.prefix + name;
    this.lineCopy = new LineCopy({
      tail,
      keys: { log: key('log'), meta: key('meta'), waiting: key('waiting') },
      head: (pageSize) => this.run('waitingRoomLogHead', [pageSize]),
    });
    this.lineCopy.start();
    return this.lineCopy;
  }

  async recentReleases(): Promise<RecentReleases> {
    const [served, times] = await this.run('waitingRoomRecentReleases', []);
    return { served, times: times.map(Number) };
  }

  async touch(uuid: string, now: number): Promise<boolean> {
    return (await this.run('waitingRoomTouch', [uuid, now])) === 1;
  }

  /** Releases `count` from the head; with `upTo`, none whose ticket is past it (`PartedLine.release`). */
  async release(count: number, now: number, policy: ReleasePolicy, upTo?: number): Promise<Release> {
    const limited = count > 0 ? Math.min(count, Number.MAX_SAFE_INTEGER) : 0;
    const reply = await this.run('waitingRoomRelease', [
      limited,
      now,
      policy.sessionMs,
      policy.abandonMs,
      randomSeed(policy),
      policy.drawing ?? '',
      upTo ?? '',
    ]);
    return decodeRelease(reply);
  }

  /** The tickets of the first `count` places in line, in order. */
  async headTickets(count: number): Promise<number[]> {
    const flat = await this.direct(() => this.client.zrange(this.keys[SCRIPT_KEYS.indexOf('waiting')], '0', String(count - 1), 'WITHSCORES'));
    const tickets: number[] = [];
    for (let i = 1; i < flat.length; i += 2) tickets.push(Number(flat[i]));
    return tickets;
  }

  /**
   * How many places wait with a ticket before `ticket`, and the line's served, from this
   * instance's copy of the line when it holds every change logged up to `loggedBy` (ms), else
   * from Redis, in one step.
   */
  async countBefore(ticket: number, loggedBy = Number.POSITIVE_INFINITY): Promise<{ readonly before: number; readonly served: number }> {
    const copied = this.localLine && !this.closed ? this.copy().countBefore(ticket, loggedBy) : undefined;
    if (copied) return copied;
    return this.counts.call(ticket);
  }

  /**
   * The release loop's pace of a line split across shards, kept in this store, its first part
   * (`PartedLine.releaseDue`): puts back `givenBack`, then takes at most `most` releases from the
   * bucket at `perMinute`, none while paused. How many it took.
   */
  takeReleases(now: number, perMinute: number, most: number, givenBack = 0): Promise<number> {
    return this.run('waitingRoomPartedPace', [now, perMinute, Math.max(0, most), givenBack]);
  }

  /**
   * A step of a priority code in a line split across shards, in the session's part
   * (`PartedLine.useCode`): `check` whether its place may take a code, count a `wrong` one, or move
   * it ahead to `ticket`. The outcome, and the place's uuid and position in this part when it is
   * ahead, moved, or (at `check`) may take it.
   */
  async placeCode(
    sessionId: string,
    perPlace: number,
    step: 'check' | 'wrong' | { readonly ticket: string },
  ): Promise<{ readonly outcome: CodeUse['outcome']; readonly uuid?: string; readonly position?: number }> {
    const [outcome, position, uuid] = await this.run('waitingRoomPartedCodePlace', [sessionId, perPlace, typeof step === 'string' ? step : step.ticket]);
    return { outcome: CODE_OUTCOMES[outcome], uuid, position };
  }

  /**
   * A priority code checked and used in the first part of a line split across shards, where the
   * codes are kept, with the room's next code holder's ticket (`PartedLine.useCode`).
   */
  async takeCode(
    hash: string,
    now: number,
    limits: CodeGuessLimits,
  ): Promise<{ readonly outcome: 'limited' | 'wrong' } | { readonly outcome: 'taken'; readonly ticket: string; readonly expiresAt: string }> {
    const [outcome, ticket, expiresAt] = await this.run('waitingRoomPartedCodeTake', [hash, now, limits.address, limits.perAddress, limits.windowMs]);
    if (outcome !== 4) return { outcome: CODE_OUTCOMES[outcome] };
    return { outcome: 'taken', ticket, expiresAt };
  }

  /** Gives back a code `takeCode` used for a place that could not take it; kept again until it expires. */
  async giveCodeBack(hash: string, expiresAt: string, now: number): Promise<void> {
    await this.run('waitingRoomPartedCodeReturn', [hash, expiresAt, now]);
  }

  /** Whether to tell the pages a line split across shards moved, its parts' served being `served` (`Release.moved`). */
  async tellMoved(served: number, now: number, intervalMs: number): Promise<boolean> {
    return (await this.run('waitingRoomPartedMoved', [served, now, intervalMs])) === 1;
  }

  releaseDue(now: number, policy: ReleasePolicy): Promise<Release> {
    return this.releaseStep(now, policy, this.lineCopy?.returnedReleases() ?? []);
  }

  /** The release loop's step, releasing again first the places in `again` still waiting (releaseAgain in lua/prelude.lua). */
  private async releaseStep(now: number, policy: ReleasePolicy, again: readonly string[]): Promise<Release> {
    const { activeLimit, sessionMs, perMinute, abandonMs, claimMs = sessionMs } = policy;
    const reply = await this.run('waitingRoomReleaseDue', [
      now,
      activeLimit,
      sessionMs,
      perMinute,
      abandonMs,
      randomSeed(policy),
      policy.drawing ?? '',
      claimMs,
      ...again,
    ]);
    return decodeRelease(reply);
  }

  async releaseAgain(uuid: string, now: number, policy: ReleasePolicy): Promise<Release | undefined> {
    if (!this.lineCopy?.sawLeave(uuid)) return undefined;
    // The loop's step with no release due, for this place alone: the others are the loop's to release and tell.
    return this.releaseStep(now, { ...policy, perMinute: 0 }, [uuid]);
  }

  async dropAbandoned(now: number, abandonMs: number): Promise<number> {
    return this.run('waitingRoomDropAbandoned', [now, abandonMs]);
  }

  async takeHeld(uuid: string, sessionId: string): Promise<HeldRequest | undefined> {
    const reply = await this.run('waitingRoomTakeHeld', [uuid, sessionId]);
    return reply === null ? undefined : decodeRequest(reply);
  }

  /**
   * The mark and the `WAIT` for its replicas, in one pipeline: `WAIT` counts the writes of its own
   * connection, and on a Cluster the pipeline goes to the line's slot, the mark's primary.
   * Unacknowledged, the mark is taken back and the call fails as unavailable: the visitor's next
   * try replays the request, on this primary or on the replica promoted meanwhile, once.
   */
  private async takeAcknowledged(call: readonly (string | number)[], uuid: string): Promise<Answer<'waitingRoomTakeHeld'>> {
    const pipeline = this.client.pipeline();
    // The store's command by its name, its arguments built as every call's are (`send`).
    (pipeline.waitingRoomTakeHeld as (...args: unknown[]) => unknown).call(pipeline, ...call);
    const results = await pipeline.wait(this.replayReplicas, Math.min(REPLAY_ACK_MS, this.commandTimeoutMs / 2)).exec();
    const [[markError, marked] = [], [waitError, acknowledged] = []] = results ?? [];
    if (markError) throw markError;
    const answer = marked as Answer<'waitingRoomTakeHeld'>;
    if (answer[2] === null || (!waitError && Number(acknowledged) >= this.replayReplicas)) return answer;
    await this.run('waitingRoomUntakeHeld', [uuid]).catch(() => undefined);
    throw new StoreUnavailableError(
      `No replica acknowledged the replay of ${uuid} within ${REPLAY_ACK_MS} ms (REDIS_REPLAY_REPLICAS=${this.replayReplicas}): not sent, so that a failover cannot send it twice.`,
      waitError ? { cause: waitError } : undefined,
    );
  }

  async moveSession(from: string, to: string, userId: number): Promise<void> {
    await this.run('waitingRoomMoveSession', [from, to, userId]);
  }

  async addCodes(hashes: readonly string[], now: number, expiresAt: number): Promise<void> {
    // In slices, so that one call never holds Redis for long however many codes are issued.
    for (let i = 0; i < hashes.length; i += CODES_PER_CALL) {
      await this.run('waitingRoomAddCodes', [now, expiresAt, ...hashes.slice(i, i + CODES_PER_CALL)]);
    }
  }

  async useCode(sessionId: string, hash: string, now: number, limits: CodeGuessLimits): Promise<CodeUse> {
    const [outcome, position] = await this.run('waitingRoomUseCode', [
      sessionId,
      hash,
      now,
      limits.address,
      limits.perPlace,
      limits.perAddress,
      limits.windowMs,
    ]);
    const named = CODE_OUTCOMES[outcome];
    return named === 'moved' || named === 'ahead' ? { outcome: named, position: position ?? 0 } : { outcome: named };
  }

  async codeCounts(): Promise<CodeCounts> {
    const [issued, used] = await this.run('waitingRoomCodeCounts', []);
    return { issued, used };
  }

  async offerHandoff(key: string, offer: HandoffOffer, now: number): Promise<boolean> {
    return (await this.run('waitingRoomOfferHandoff', [key, offer.uuid, offer.sessionId, offer.name, offer.expiresAt, HANDOFF_RECORD_MS, now])) === 1;
  }

  async takeHandoff(key: string, to: string, newUuid: string, now: number): Promise<HandoffOutcome<Entry>> {
    const reply = await this.run('waitingRoomTakeHandoff', [key, to, newUuid, now, MOVED_MARK_MS, HANDOFF_RECORD_MS]);
    if (reply[0] !== 'moved') return { moved: false, refusal: reply[0] };
    const [, from, name, entry] = reply;
    return { moved: true, entry: decodeEntry(entry), from, name };
  }

  async movedAway(uuid: string, now: number): Promise<boolean> {
    return (await this.run('waitingRoomMovedAway', [uuid, now])) === 1;
  }

  async stats(now: number): Promise<Stats> {
    const [waiting, active, released, paused, arrived, pending] = await this.run('waitingRoomStats', [now]);
    return { waiting, pending, active, released, paused: paused === 1, arrived };
  }

  async setPaused(paused: boolean): Promise<void> {
    await this.run('waitingRoomSetPaused', [paused ? '1' : '0']);
  }

  async limits(): Promise<LimitOverrides> {
    return decodeLimits(await this.run('waitingRoomLimits', []));
  }

  async setLimits(change: LimitChange): Promise<LimitOverrides> {
    const arg = (value: number | null | undefined) => (value === null ? '-' : value === undefined ? '' : String(value));
    return decodeLimits(await this.run('waitingRoomSetLimits', [arg(change.activeLimit), arg(change.perMinute)]));
  }

  async events(): Promise<StoredEvents> {
    const [version, json] = await this.run('waitingRoomEvents', []);
    return { version: Number(version ?? 0), events: json ? (JSON.parse(json) as DropEvent[]) : [] };
  }

  async saveEvents(version: number, events: readonly DropEvent[]): Promise<boolean> {
    return (await this.run('waitingRoomSaveEvents', [version, JSON.stringify(events)])) === 1;
  }

  async eventState(id: string): Promise<EventState> {
    return decodeEventState(await this.run('waitingRoomEventState', [id]));
  }

  async startPrequeue(id: string, seed: string | null): Promise<EventState> {
    return decodeEventState(await this.run('waitingRoomStartPrequeue', [id, seed ?? '']));
  }

  async openEvent(id: string): Promise<EventState> {
    return decodeEventState(await this.run('waitingRoomOpenEvent', [id]));
  }

  async entrantsOf(id: string): Promise<string[]> {
    const reply = await this.run('waitingRoomEntrantsOf', [id]);
    if (reply[0] === 0) return reply[1];
    if (reply[0] === 2) return JSON.parse(reply[1]) as string[];
    // The draw's order, a list that only grew while it was placed and never changes once drawn.
    const key = `${this.prefix}ev:${id}:order`;
    const order: string[] = [];
    for (let start = 0; start < reply[1]; start += ORDER_PAGE) {
      const page = await this.direct(() => this.client.lrange(key, start, start + ORDER_PAGE - 1));
      for (const uuid of page) order.push(uuid);
    }
    return order;
  }

  async unkeyedEntrants(id: string, count: number): Promise<UnkeyedEntrants> {
    const [mark, ...uuids] = await this.run('waitingRoomDrawUnkeyed', [id, count]);
    return { uuids, mark };
  }

  async addDrawKeys(id: string, keys: readonly DrawKey[], mark: number): Promise<void> {
    await this.run('waitingRoomAddDrawKeys', [id, mark, ...keys.map(({ uuid, key }) => key + uuid)]);
  }

  async placeDrawn(id: string, count: number): Promise<DrawStep | undefined> {
    const [done, placed] = await this.run('waitingRoomPlaceDrawn', [id, count]);
    return done === -1 ? undefined : { placed, done: done === 1 };
  }

  async claimAnnouncement(id: string): Promise<boolean> {
    return (await this.run('waitingRoomClaimAnnouncement', [id])) === 1;
  }

  async countAfter(ticket: number): Promise<number> {
    return this.run('waitingRoomCountAfter', [ticket]);
  }

  async forgetEvent(id: string): Promise<void> {
    await this.run('waitingRoomForgetEvent', [id]);
  }

  async challengeDifficulty(): Promise<number | undefined> {
    const reply = await this.run('waitingRoomChallengeDifficulty', []);
    return reply === null ? undefined : Number(reply);
  }

  async setChallengeDifficulty(difficulty: number | null): Promise<number | undefined> {
    const reply = await this.run('waitingRoomSetChallengeDifficulty', [difficulty === null ? '' : difficulty]);
    return reply === null ? undefined : Number(reply);
  }

  async message(): Promise<StoredMessage | undefined> {
    return storedMessage(await this.run('waitingRoomMessage', []));
  }

  async setMessage(message: MessageTexts | null, now: number): Promise<StoredMessage> {
    return storedMessage(await this.run('waitingRoomSetMessage', [message ? JSON.stringify(message) : '', now])) as StoredMessage;
  }

  /** Closes the client the store made; a client given to the store is left to its owner. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.seenMarks.flush();
    await this.report.writeArrivals();
    this.closed = true;
    clearTimeout(this.arrivalsLogged);
    this.lineCopy?.close();
    this.tail?.disconnect();
    this.client.off('ready', this.onReady);
    for (const event of BROKEN) this.client.off(event, this.onBroken);
    if (this.ownsClient) await closeRedis(this.client);
  }

  /**
   * Runs command `name` with `args` (after the keys, the prefix and the deadline), as one atomic
   * step. `guarded`: the call carries a deadline in Redis time, so that Redis refuses it once we
   * have given up on it (see deadline.ts). Once the client is ready and the deadline clock known,
   * the call is sent at once; otherwise it first waits for them, within the store's bounds.
   */
  private run<Name extends CommandName>(name: Name, args: CommandArgs<Name>, guarded = true): Promise<CommandReply<Name>> {
    // The marks that wait go first, so that this call reads every poll answered before it.
    if (name !== 'waitingRoomMarkSeen') this.seenMarks.flush();
    if (this.closed || this.client.status !== 'ready' || !this.upgradeDone || (guarded && !this.deadlines.known)) {
      return this.runWhenReady(name, args, guarded);
    }
    return this.send(name, args, guarded).catch((error: unknown) => this.failed(error));
  }

  private async runWhenReady<Name extends CommandName>(name: Name, args: CommandArgs<Name>, guarded: boolean): Promise<CommandReply<Name>> {
    await this.connected();
    try {
      await this.upgraded();
      if (guarded) await this.deadlines.ready();
      return await this.send(name, args, guarded);
    } catch (error) {
      return this.failed(error);
    }
  }

  /** Sends the call, and answers the command's own answer; the line's version it also answers goes to the copy. */
  private async send<Name extends CommandName>(name: Name, args: CommandArgs<Name>, guarded: boolean): Promise<CommandReply<Name>> {
    const deadline = guarded ? this.deadlines.next() : '0';
    // One command of the store's, by its name: each is typed in commands.ts.
    const command = this.client[name] as (...call: unknown[]) => Promise<Answer<Name>>;
    const call = [...this.keys, this.prefix, deadline, ...args];
    const [version, arrivalsWait, answer] =
      name === 'waitingRoomTakeHeld' && this.replayReplicas > 0
        ? ((await this.takeAcknowledged(call, String(args[0]))) as Answer<Name>)
        : await command.call(this.client, ...call);
    this.lineCopy?.written(version);
    if (arrivalsWait === 1) this.logArrivalsLater();
    else if (this.arrivalsLogged) {
      // None waits any more: logged by this call, or by another's.
      clearTimeout(this.arrivalsLogged);
      this.arrivalsLogged = undefined;
    }
    // A script that answers nothing (Lua's nil) ends its reply early.
    return answer;
  }

  /**
   * Arrivals a reply said wait to be logged (`ARRIVALS_LOGGED_MS`), this instance's or another's:
   * once that time has passed, it asks for them to be logged, unless a reply has said meanwhile that
   * none waits. One ask at a time, whatever the arrivals; asked again while some still wait.
   */
  private logArrivalsLater(): void {
    if (this.arrivalsLogged || this.closed) return;
    this.arrivalsLogged = setTimeout(() => {
      this.arrivalsLogged = undefined;
      // Not logged now (Redis away), they are with the next change, or the next arrival asks again.
      this.run('waitingRoomLogArrivals', [], false).catch(() => undefined);
    }, ARRIVALS_LOGGED_MS);
  }

  /** A plain command (not a script), failing as every call of the store does. */
  private async direct<T>(call: () => Promise<T>): Promise<T> {
    try {
      await this.connected();
      return await call();
    } catch (error) {
      return this.failed(error);
    }
  }

  /** Moves a line the previous version left (see `upgrade-list-line.lua`), once; tried again after a failure. */
  private upgraded(): Promise<unknown> {
    const key = (name: string) => this.prefix + name;
    this.upgrade ??= this.client.waitingRoomUpgradeListLine(key('line'), key('waiting'), key('seen'), this.prefix).then(
      (moved) => {
        this.upgradeDone = true;
        return moved;
      },
      (error: unknown) => {
        this.upgrade = undefined;
        throw error;
      },
    );
    return this.upgrade;
  }

  /** A failed call, as the store reports it. */
  private failed(error: unknown): never {
    if (error instanceof StoreUnavailableError) throw error;
    const { message } = error as Error;
    // A refused late call may also mean a clock stepped: measure it again.
    if (message.startsWith(DEADLINE_PASSED)) this.deadlines.reset();
    throw new StoreUnavailableError(`The queue store could not use Redis: ${message}`, { cause: error });
  }

  /** Resolves once the client can take a command (`readyWithin`), or rejects at once when the store is closed. */
  private async connected(): Promise<void> {
    if (this.closed) throw new StoreUnavailableError('The queue store is closed.');
    try {
      await readyWithin(this.client, this.connectWaitMs);
    } catch (error) {
      throw new StoreUnavailableError((error as Error).message, { cause: error });
    }
  }
}

function decodeLimits([activeLimit, perMinute]: LimitsReply): LimitOverrides {
  return {
    ...(activeLimit !== null && { activeLimit: Number(activeLimit) }),
    ...(perMinute !== null && { perMinute: Number(perMinute) }),
  };
}

/** The seed of a `random` release's draws, or '' to take the head. */
const randomSeed = (policy: ReleasePolicy): string => (policy.random ? String(randomInt(1, 2 ** 31)) : '');

function decodeEventState(fields: EventStateReply): EventState {
  const state: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) state[fields[i]] = fields[i + 1];
  return {
    ...(state.seed !== undefined && { seed: state.seed }),
    ...(state.after !== undefined && { afterTicket: Number(state.after) }),
    ...(state.open !== undefined && { openTicket: Number(state.open) }),
    ...(state.drawn !== undefined && { drawn: true }),
    ...(state.announced !== undefined && { announced: true }),
  };
}

function decodeRelease([served, entries, moved]: ReleaseReply): Release {
  return { released: entries.map(decodeEntry), served, moved: moved === 1 };
}

/** The message as the scripts answer it: undefined when none was ever set. */
function storedMessage([version, json]: MessageReply): StoredMessage | undefined {
  if (version === null) return undefined;
  const texts = json === null ? {} : (JSON.parse(json) as MessageTexts);
  return { ...texts, version: Number(version) };
}
