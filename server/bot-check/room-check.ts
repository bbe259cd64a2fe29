import type { Clock } from '../clock';
import type { BotChallengeMode } from '../config';
import type { QueueStore } from '../store/types';

/** How long an instance goes on with the difficulty it read from the store before reading it again. */
const DIFFICULTY_READ_MS = 1000;

/** The bot check of one room: whether a held visitor must solve a challenge, and how hard. */
export interface BotCheck {
  /** The room's configuration: its `botChallenge` and BOT_CHALLENGE_DIFFICULTY. */
  readonly configured: { readonly mode: BotChallengeMode; readonly difficulty: number };
  /**
   * What a visitor held at `now` is asked: the room's configured mode. This is the seam for
   * whatever else decides it for a while (a scheduled event overriding the room's settings).
   */
  mode(now: number): BotChallengeMode;
  /** The difficulty in force: the operator's (kept in the store, so every instance follows within a second) or the configured one. */
  difficulty(): Promise<number>;
  /** Sets the operator's difficulty in the store (null: back to the configured one); answers the one in force. */
  changeDifficulty(difficulty: number | null): Promise<number>;
}

/** A room's bot check as its configuration and the store's operator setting make it. */
export class RoomBotCheck implements BotCheck {
  private read?: { readonly at: number; readonly difficulty: number };

  constructor(
    private readonly store: QueueStore,
    readonly configured: { readonly mode: BotChallengeMode; readonly difficulty: number },
    private readonly clock: Clock,
  ) {}

  mode(_now: number): BotChallengeMode {
    return this.configured.mode;
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
