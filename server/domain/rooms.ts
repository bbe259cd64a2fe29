import type { Admission } from './admission/admission';
import type { Locale } from '../../locales';
import { DomainError } from './errors';
import { protectionTest } from './protection';
import type { EventSchedule } from './events/schedule';
import type { BotCheck } from './bot-check/room-check';
import type { Releases } from './releases';
import type { RecentReleasesCache } from './recent-releases-cache';
import type { ReportRecorder } from './report/recorder';
import type { OperatorLimits } from './room-policy';
import type { RoomMessage } from './room-message';
import type { AdmissionLimits, Entry, QueueStore, ReleasePolicy } from '../store/types';

/** One line at run time, with everything it needs (`room-factory.ts` builds each alike). */
export interface Room {
  readonly name: string;
  /** The prefixes whose requests wait in this line. */
  readonly protect: readonly string[];
  readonly store: QueueStore;
  readonly releases: Releases;
  /** The policy in force (`policy.ts`), for the gate and the metrics: the same object while nothing changes. */
  readonly limits: AdmissionLimits & Pick<ReleasePolicy, 'perMinute'>;
  /** The policy the configuration sets, before the operator's limits, an event's and admission's. */
  readonly configured: ReleasePolicy;
  /** The operator's limits (`POST /admin/limits`), kept in the store. */
  readonly operator: OperatorLimits;
  /** What sets its limits and release rate: the operator's, or the adaptive controller's below them. */
  readonly admission: Admission;
  /** Its scheduled events: the pre-queue, the draw, and what replaces its settings while one runs. */
  readonly events: EventSchedule;
  /** Whether, and how hard, a held visitor is checked for a bot before taking a place. */
  readonly botCheck: BotCheck;
  /** Writes its report as its line changes (`GET /admin/report` reads it). */
  readonly report: ReportRecorder;
  /** This instance's copy of its line's release times, for the estimates it gives (queue_info, the report). */
  readonly recentReleases: RecentReleasesCache;
  /** The named routes its page calls. */
  readonly routes: { readonly queue_request: string; readonly queue_info: string };
  /** The public channel where its line's moves (`QueueMoved`) reach its pages, and no other room's. */
  readonly queueChannel: string;
  /** The operator's message to those waiting (`PUT /admin/message`), kept in its store. */
  readonly message: RoomMessage;
  /** The language its pages speak, when its operator set one (a visitor may still pick another). */
  readonly locale?: Locale;
  /** How long a priority code issued for it stays usable (ms). */
  readonly codeMs: number;
}

/** The rooms of a server, found by path, by name or by a place in line. */
export class Rooms {
  private readonly prefixes: ReadonlyArray<{ readonly room: Room; readonly length: number; readonly protects: (path: string) => boolean }>;

  /** Every room's prefixes at once: most requests are under none, and are told so in one test. */
  private readonly anyProtects: (path: string) => boolean;

  constructor(readonly all: readonly Room[]) {
    if (all.length === 0) throw new Error('A server has at least one room.');
    this.anyProtects = protectionTest(all.flatMap((room) => room.protect));
    this.prefixes = all.flatMap((room) => room.protect.map((prefix) => ({ room, length: prefix.length, protects: protectionTest([prefix]) })));
  }

  /** The room the admin API acts on when none is named. */
  get first(): Room {
    return this.all[0];
  }

  /**
   * The room whose prefixes protect `path` (normalized); when the prefixes of several do (`/tickets`
   * and `/tickets/vip`), the one with the longest prefix. Undefined when none does.
   */
  forPath(path: string): Room | undefined {
    if (!this.anyProtects(path)) return undefined;
    if (this.all.length === 1) return this.first;
    let best: { readonly room: Room; readonly length: number } | undefined;
    for (const prefix of this.prefixes) {
      if ((!best || prefix.length > best.length) && prefix.protects(path)) best = prefix;
    }
    return best?.room;
  }

  /** The room called `name` (the first when none is named), or a 404 `unknown_room`. */
  named(name: unknown): Room {
    if (name === undefined || name === '') return this.first;
    const room = this.all.find((candidate) => candidate.name === name);
    if (!room) throw new DomainError('not_found', 'unknown_room', 'There is no room of this name.');
    return room;
  }

  /** The place `uuid` names, and its room: each room asked in turn (a server has a handful). */
  async locate(uuid: string): Promise<{ readonly room: Room; readonly entry: Entry } | undefined> {
    for (const room of this.all) {
      const entry = await room.store.get(uuid);
      if (entry) return { room, entry };
    }
    return undefined;
  }

  /**
   * Ends the session's admission in every room (the origin's revoke), each slot kept `keepSlotMs`
   * more (see `QueueStore.revoke`): the rooms it was admitted in.
   */
  async revoke(sessionId: string, now: number, keepSlotMs = 0): Promise<string[]> {
    const revoked = await Promise.all(
      this.all.map(async (room) => {
        if (!(await room.store.revoke(sessionId, now, keepSlotMs))) return undefined;
        void room.report.revoked();
        return room.name;
      }),
    );
    return revoked.filter((name) => name !== undefined);
  }

  /** Moves a visitor's places and admissions in every room to a new session id (sign-in). */
  async moveSession(from: string, to: string, userId: number): Promise<void> {
    for (const room of this.all) await room.store.moveSession(from, to, userId);
  }
}
