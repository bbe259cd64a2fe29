import type { Admission } from './admission/admission';
import type { Locale } from '../locales';
import type { RoomConfig } from './config';
import { HttpError } from './errors';
import { protectionTest } from './hold';
import { ROUTES } from '@waiting-room/streams/contract';
import type { EventSchedule } from './events/schedule';
import type { BotCheck } from './bot-check/room-check';
import type { Releases } from './releases';
import type { AdmissionLimits, Entry, QueueStore } from './store/types';

/** One line at run time: its store, its releases and its limits. */
export interface Room {
  readonly name: string;
  readonly store: QueueStore;
  readonly releases: Releases;
  /** The limits in force (`releases.policy`), for the gate. */
  readonly limits: AdmissionLimits;
  /** What sets its limits and release rate: the operator's, or the adaptive controller's below them. */
  readonly admission: Admission;
  /** Its scheduled events: the pre-queue, the draw, and what replaces its settings while one runs. */
  readonly events: EventSchedule;
  /** Whether, and how hard, a held visitor is checked for a bot before taking a place. */
  readonly botCheck: BotCheck;
  /**
   * True for the first room. Its page calls the contract's routes as they are, and it alone
   * publishes `QueueMoved` on the one line-wide channel the page listens to: a page of another
   * room moves up by its polls, never by a move of a line it is not in.
   */
  readonly primary: boolean;
  /** The named routes its page calls: the contract's, with `?room=` for all but the first room. */
  readonly routes: { readonly queue_request: string; readonly queue_info: string };
  /** The language its pages speak, when its operator set one (a visitor may still pick another). */
  readonly locale?: Locale;
}

/** The rooms of a server, found by path, by name or by a place in line. */
export class Rooms {
  private readonly prefixes: ReadonlyArray<{ readonly room: Room; readonly length: number; readonly protects: (path: string) => boolean }>;

  /** Every room's prefixes at once: most requests are under none, and are told so in one test. */
  private readonly anyProtects: (path: string) => boolean;

  constructor(
    readonly all: readonly Room[],
    configs: readonly RoomConfig[],
  ) {
    if (all.length === 0) throw new Error('A server has at least one room.');
    this.anyProtects = protectionTest(configs.flatMap((config) => config.protect));
    this.prefixes = all.flatMap((room, i) =>
      (configs[i]?.protect ?? []).map((prefix) => ({ room, length: prefix.length, protects: protectionTest([prefix]) })),
    );
  }

  get primary(): Room {
    return this.all[0];
  }

  /**
   * The room whose prefixes protect `path` (normalized); when the prefixes of several do (`/tickets`
   * and `/tickets/vip`), the one with the longest prefix. Undefined when none does.
   */
  forPath(path: string): Room | undefined {
    if (!this.anyProtects(path)) return undefined;
    if (this.all.length === 1) return this.primary;
    let best: { readonly room: Room; readonly length: number } | undefined;
    for (const prefix of this.prefixes) {
      if ((!best || prefix.length > best.length) && prefix.protects(path)) best = prefix;
    }
    return best?.room;
  }

  /** The room called `name` (the primary one when none is named), or a 404 `unknown_room`. */
  named(name: unknown): Room {
    if (name === undefined || name === '') return this.primary;
    const room = this.all.find((candidate) => candidate.name === name);
    if (!room) throw new HttpError(404, 'unknown_room', 'There is no room of this name.');
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

  /** Moves a visitor's places and admissions in every room to a new session id (sign-in). */
  async moveSession(from: string, to: string, userId: number): Promise<void> {
    for (const room of this.all) await room.store.moveSession(from, to, userId);
  }
}

/** The routes of a room's page: the first room's are the contract's own. */
export function roomRoutes(name: string, primary: boolean): Room['routes'] {
  if (primary) return ROUTES;
  const query = `?room=${encodeURIComponent(name)}`;
  return { queue_request: ROUTES.queue_request + query, queue_info: ROUTES.queue_info + query };
}
