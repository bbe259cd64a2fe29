import Pusher from 'pusher-js';
import { CHANNELS } from '@waiting-room/streams/contract';
import { eventually } from '../../support/eventually';
import { adminRelease, type Instance } from '../../support/scale-out';
import type { TestOrigin } from './origin';
import { Visitor, type Answer } from './visitor';

/**
 * The chaos suite's workload and checker. Visitors arrive every 150 ms on either of two gateways;
 * each holds a POST, listens on its channel with pusher-js and sends queue_request once
 * subscribed, as the page does, polls queue_info every 300 ms, replays once released (told by
 * the RequestUnqueud event or a poll at 0) and tries the replay a second time. Releases come from the gateways' loops and from the admin API. Every request is
 * recorded with its start, end, status and position; faults are recorded with their moment, and
 * `check` reads the whole history.
 */

/** A request unanswered after this long hangs: the gateways answer within their command timeouts. */
export const HANG_MS = 10_000;
/** Goal from a fault to releases flowing again. */
export const RECOVERY_GOAL_MS = 10_000;
/** The room's limits in the suite. */
export const LIMITS = { ACTIVE_LIMIT: '3', RELEASE_PER_MINUTE: '300', SESSION_SECONDS: '2' } as const;
/**
 * How far beyond ACTIVE_LIMIT admissions may go around a fault (docs/durability.md): a failover
 * or a crash may lose the admissions of the last moment, and the line admits again in their place.
 */
export const ADMISSION_SLACK_PER_FAULT = Number(LIMITS.ACTIVE_LIMIT);
/**
 * A session of SESSION_SECONDS less what a replay may trail its release by (a poll's interval and
 * its answer): two replays closer than this held admissions at the same time.
 */
const ADMISSION_WINDOW_MS = Number(LIMITS.SESSION_SECONDS) * 1000 - 500;

export type FaultKind = 'kill-primary' | 'stop-primary' | 'kill-gateway' | 'restart-aof' | 'kill-sentinel-primary';

/** One request of the history. */
interface Step {
  readonly visitor: number;
  readonly kind: 'hold' | 'queue_request' | 'poll' | 'pushed' | 'replay' | 'replay-again';
  readonly start: number;
  readonly end: number;
  readonly status: number;
  readonly position?: number;
}

interface Fault {
  readonly kind: FaultKind;
  readonly at: number;
}

/** What the checker measured, for the test's assertions and the docs. */
export interface Figures {
  readonly faults: readonly FaultKind[];
  readonly visitors: number;
  readonly requests: number;
  readonly replays: number;
  /** Held requests that reached the origin more than once. */
  readonly doubles: number;
  /** Second replays answered 200. */
  readonly acceptedTwice: number;
  /** Visitors whose position grew from one poll to the next. */
  readonly grown: number;
  /** Places lost (queue_info answering 404 for a place it had), by the fault before. */
  readonly lost: Record<string, number>;
  readonly hung: number;
  /** From each fault to the first replay accepted after it, ms. */
  readonly recovery: readonly number[];
  /** Most visitors the loop admitted within one session's length, away from faults and near one. */
  readonly admittedAtOnce: { readonly calm: number; readonly nearFault: number };
  /** By how many the loop's admissions went beyond ACTIVE_LIMIT and the slack of the faults near. */
  readonly beyondLimits: number;
  /** Visitors the admin API released who never heard it (no push, no poll at 0, no replay). */
  readonly unheard: number;
  /** Visitors told of their release by push (RequestUnqueud on their channel). */
  readonly pushed: number;
  readonly adminReleases: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `work`'s answer, or status 0 when it hangs past `HANG_MS` (or the connection failed: -1). */
async function timed(work: () => Promise<Answer>): Promise<{ answer?: Answer; status: number; start: number; end: number }> {
  const start = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), HANG_MS)));
  try {
    const answer = await Promise.race([work(), hang]);
    if (answer === 'hang') return { status: 0, start, end: Date.now() };
    return { answer, status: answer.status, start, end: Date.now() };
  } catch {
    return { status: -1, start, end: Date.now() };
  } finally {
    clearTimeout(timer);
  }
}

export class Workload {
  private readonly history: Step[] = [];
  private readonly faults: Fault[] = [];
  /** uuid of each visitor's place. */
  private readonly uuids = new Map<string, number>();
  /** Admin releases: the uuids released and when the answer came. */
  private readonly adminReleased: { uuid: string; at: number }[] = [];
  private readonly visits: Promise<void>[] = [];
  private running = true;
  private releasing = true;
  private readonly loops: Promise<void>[] = [];

  /**
   * `name` tells this workload's held requests at the origin from others'; `gateways` is read at
   * each request: a gateway restarted in its place is used at once. The visitors go to `room`,
   * the room that protects `path` (the first room when none is named).
   */
  constructor(
    private readonly name: string,
    private readonly gateways: readonly Instance[],
    private readonly origin: TestOrigin,
    private readonly room: { readonly path: string; readonly name?: string } = { path: '/checkout' },
  ) {
    this.loops.push(this.arrivals(), this.adminReleases());
  }

  /** Records a fault happening now. */
  fault(kind: FaultKind): void {
    this.faults.push({ kind, at: Date.now() });
  }

  /** Resolves once a replay is accepted after the last fault; fails with `explain()` appended. */
  async releasesFlowing(explain: () => Promise<string>): Promise<void> {
    const since = this.faults[this.faults.length - 1].at;
    await eventually(
      `a replay accepted after the fault (${this.name})`,
      async () => this.history.some((step) => step.kind === 'replay' && step.status === 200 && step.start > since),
      Boolean,
      30_000,
      100,
    ).catch(async (error: Error) => {
      const logs = this.gateways.map((gateway) => `--- gateway ${gateway.port}:\n${gateway.process.output().slice(-8000)}`).join('\n');
      const tally = new Map<string, number>();
      for (const step of this.history.filter((one) => one.start > since)) {
        const kind = `${step.kind} ${step.status}`;
        tally.set(kind, (tally.get(kind) ?? 0) + 1);
      }
      throw new Error(`${error.message}\nrequests since, by kind and status: ${JSON.stringify(Object.fromEntries(tally))}\n${logs}\n${await explain()}`);
    });
  }

  /** An admin release of `count` sent to `gateway` now, not awaited (to kill the gateway during it). */
  releaseOn(gateway: Instance, count: number): Promise<void> {
    return this.adminRelease(gateway, count);
  }

  /** Stops the admin releases, lets every released visitor hear it, then stops the visitors. */
  async stop(): Promise<void> {
    this.releasing = false;
    await sleep(2000);
    this.running = false;
    await Promise.all(this.loops);
    await Promise.all(this.visits);
  }

  /** Reads the whole history. */
  check(): Figures {
    const { history, faults } = this;
    const posts = this.origin.at(this.room.path).filter((one) => one.method === 'POST' && one.url.includes(`item=${this.name}-`));
    const perItem = new Map<string, number>();
    for (const one of posts) perItem.set(one.url, (perItem.get(one.url) ?? 0) + 1);
    const faultBefore = (at: number) => [...faults].reverse().find((fault) => fault.at <= at);

    const grown = new Set<number>();
    const lostBy = new Map<number, Fault | undefined>();
    const last = new Map<number, number>();
    for (const step of history.filter((one) => one.kind === 'poll')) {
      if (step.status === 404 && !lostBy.has(step.visitor)) lostBy.set(step.visitor, faultBefore(step.start));
      if (step.position === undefined) continue;
      const before = last.get(step.visitor);
      if (before !== undefined && step.position > before) grown.add(step.visitor);
      last.set(step.visitor, step.position);
    }
    const lost: Record<string, number> = {};
    for (const fault of lostBy.values()) lost[fault?.kind ?? 'none'] = (lost[fault?.kind ?? 'none'] ?? 0) + 1;

    const accepted = history.filter((step) => step.kind === 'replay' && step.status === 200);
    const recovery = faults.map((fault) => Math.min(...accepted.filter((step) => step.start > fault.at).map((step) => step.end)) - fault.at);

    // Admissions by the loop: replays accepted within ADMISSION_WINDOW_MS of each other; a place
    // freed when a session ends is taken by a replay at least that much later. The admin API
    // releases beyond the limit on purpose; its visitors are not counted.
    const byAdmin = new Set(this.adminReleased.map(({ uuid }) => this.uuids.get(uuid)));
    const windowMs = ADMISSION_WINDOW_MS;
    const admittedAtOnce = { calm: 0, nearFault: 0 };
    let beyondLimits = 0;
    const byLoop = accepted.filter((step) => !byAdmin.has(step.visitor));
    for (const step of byLoop) {
      const within = byLoop.filter((other) => other.end <= step.end && other.end > step.end - windowMs).length;
      const faultsNear = faults.filter(
        (fault) => fault.at <= step.end && fault.at > step.end - Number(LIMITS.SESSION_SECONDS) * 1000 - RECOVERY_GOAL_MS,
      ).length;
      const allowed = Number(LIMITS.ACTIVE_LIMIT) + faultsNear * ADMISSION_SLACK_PER_FAULT;
      const which = faultsNear > 0 ? 'nearFault' : 'calm';
      admittedAtOnce[which] = Math.max(admittedAtOnce[which], within);
      beyondLimits = Math.max(beyondLimits, within - allowed);
    }

    // Every visitor the admin API released hears it: a push, a poll at 0 or a replay, after the release.
    const unheard = this.adminReleased.filter(({ uuid }) => {
      const visitor = this.uuids.get(uuid);
      if (visitor === undefined || lostBy.has(visitor)) return false;
      return !history.some(
        (step) => step.visitor === visitor && (step.kind === 'pushed' || step.position === 0 || (step.kind === 'replay' && step.status === 200)),
      );
    }).length;

    return {
      faults: faults.map(({ kind }) => kind),
      visitors: this.visits.length,
      requests: history.length,
      replays: posts.length,
      doubles: [...perItem.values()].filter((count) => count > 1).length,
      acceptedTwice: history.filter((step) => step.kind === 'replay-again' && step.status === 200).length,
      grown: grown.size,
      lost,
      hung: history.filter((step) => step.status === 0).length,
      recovery,
      admittedAtOnce,
      beyondLimits,
      unheard,
      pushed: new Set(history.filter((step) => step.kind === 'pushed').map((step) => step.visitor)).size,
      adminReleases: this.adminReleased.length,
    };
  }

  private async arrivals(): Promise<void> {
    for (let id = 0; this.running; id++) {
      this.visits.push(this.visit(id));
      await sleep(150);
    }
  }

  /** An admin release of one every 1.5 s, on either gateway. */
  private async adminReleases(): Promise<void> {
    for (let turn = 0; this.releasing; turn++) {
      await sleep(1500);
      if (this.releasing) await this.adminRelease(this.gateways[turn % 2], 1);
    }
  }

  private async adminRelease(gateway: Instance, count: number): Promise<void> {
    const released = await adminRelease(gateway, count, false, this.room.name).catch(() => []);
    const at = Date.now();
    for (const uuid of released) this.adminReleased.push({ uuid, at });
  }

  /**
   * One visitor: holds a POST, listens on its channel and sends queue_request, polls until
   * released (or told by push), replays, and tries the replay once more.
   * A gateway that does not answer (killed) is left for the other, as a load balancer does.
   */
  private async visit(id: number): Promise<void> {
    let on = id % 2;
    const browser = new Visitor(this.gateways[on].url);
    const send = async (kind: Step['kind'], work: (visitor: Visitor) => Promise<Answer>) => {
      const visitor = new Visitor(this.gateways[on].url);
      visitor.cookie = browser.cookie;
      const done = await timed(() => work(visitor));
      browser.cookie = visitor.cookie || browser.cookie;
      if (done.status === -1) on = 1 - on;
      const position = kind === 'poll' ? (done.answer?.json as { position?: number } | undefined)?.position : undefined;
      this.history.push({ visitor: id, kind, start: done.start, end: done.end, status: done.status, position });
      return done;
    };
    const hold = () => send('hold', (visitor) => visitor.send('POST', `${this.room.path}?item=${this.name}-${id}`, { form: { item: String(id) } }));
    let held = await hold();
    if (held.status === -1) held = await hold();
    const page = held.answer?.page;
    if (!page) return;
    this.uuids.set(page.queue.uuid, id);
    const pusher = new Pusher(page.realtime.key, {
      cluster: 'local',
      wsHost: '127.0.0.1',
      wsPort: Number(new URL(this.gateways[on].url).port),
      forceTLS: false,
      enabledTransports: ['ws'],
    });
    const told = { pushed: false };
    const channel = pusher.subscribe(CHANNELS.client(page.queue.uuid));
    channel.bind(CHANNELS.releaseEvent, () => {
      told.pushed = true;
      this.history.push({ visitor: id, kind: 'pushed', start: Date.now(), end: Date.now(), status: 200 });
    });
    channel.bind('pusher:subscription_succeeded', () => void send('queue_request', (visitor) => visitor.queueRequest(page)));
    try {
      await this.waitAndReplay(page, send, told);
    } finally {
      pusher.disconnect();
    }
  }

  /**
   * Polls until released or told by push, then replays, and tries the replay once more. A replay
   * refused as not released (a failover undid the release it was told of) goes back to waiting.
   */
  private async waitAndReplay(
    page: NonNullable<Answer['page']>,
    send: (kind: Step['kind'], work: (visitor: Visitor) => Promise<Answer>) => Promise<{ answer?: Answer; status: number }>,
    told: { pushed: boolean },
  ): Promise<void> {
    while (this.running) {
      await sleep(300);
      if (!told.pushed) {
        const poll = await send('poll', (visitor) => visitor.queueInfo(page.queue.uuid, page));
        if (poll.status === 404) return;
        if ((poll.answer?.json as { position?: number } | undefined)?.position !== 0) continue;
      }
      let undone = false;
      for (const kind of ['replay', 'replay-again'] as const) {
        let replay;
        do {
          replay = await send(kind, (visitor) => visitor.post(page.queue.uri, { form: { uuid: page.queue.uuid, _token: page.csrfToken } }));
        } while (this.running && (replay.status === 503 || replay.status === -1) && (await sleep(300).then(() => true)));
        if (kind === 'replay' && replay.status === 409 && (replay.answer?.json as { error?: { code?: string } } | undefined)?.error?.code === 'not_released') {
          told.pushed = false;
          undone = true;
          break;
        }
      }
      if (undone) continue;
      return;
    }
  }
}
