import type { Clock } from '../clock';
import type { DropEvent } from '../events/event';
import type { BotChallengeMode } from './mode';
import type { QueueStore } from '../../store/types';

/** How long an instance goes on with the difficulty it read from the store before reading it again. */
const DIFFICULTY_READ_MS = 1000;

/** The bot check of one room: whether a held visitor must solve a challenge, and how hard. */
export interface BotCheck {
  /** The room's configuration: its `botChallenge` and BOT_CHALLENGE_DIFFICULTY. */
  readonly configured: { readonly mode: BotChallengeMode; readonly difficulty: number };
  /**
   * What a visitor held at `now` is asked: the `botChallenge` of the event in force (from its
   * pre-queue to its end) when it sets one, otherwise the room's configured mode.
   */
  mode(now: number): BotChallengeMode;
  /** The difficulty in force: the operator's (kept in the store, so every instance follows within a second) or the configured one. */
  difficulty(): Promise<number>;
  /** Sets the operator's difficulty in the store (null: back to the configured one); answers the one in force. */
  changeDifficulty(difficulty: number | null): Promise<number>;
}

/** The room's events, as far as the bot check asks: the one in force at a moment. */
export interface EventsInForce {
  inForce(now: number): { readonly event: Pick<DropEvent, 'botChallenge'> } | undefined;
}

/** A room's bot check as its configuration, its events and the store's operator setting make it. */
export class RoomBotCheck implements BotCheck {
  private read?: { readonly at: number; readonly difficulty: number };

  constructor(
    private readonly store: QueueStore,
    readonly configured: { readonly mode: BotChallengeMode; readonly difficulty: number },
    private readonly clock: Clock,
    private readonly events?: EventsInForce,
  ) {}

  mode(now: number): BotChallengeMode {
    // An event kept before events had a bot check reads as one without (undefined): the room's.
    return this.events?.inForce(now)?.event.botChallenge ?? this.configured.mode;
  }

  async difficulty(): Promise<number> {
    const now = this.clock.now();
    if (this.read && now - this.read.at < DIFFICULTY_READ_MS) return this.read.difficulty;
    return this.keep(now, await this.store.challengeDifficulty());
  }

  async changeDifficulty(difficulty: number | null): Promise<number> {
    return this.keep(this.clock.now(), await this.store.setChallengeDifficulty(difficulty));
  }

  private keep(at: number, set: number | undefined): number {
    this.read = { at, difficulty: set ?? this.configured.difficulty };
    return this.read.difficulty;
  }
}
