/** What the bot check asks of a held visitor: nothing, or a proof of work (see docs/bot-check.md). */
export const BOT_CHALLENGES = ['off', 'pow'] as const;
export type BotChallengeMode = (typeof BOT_CHALLENGES)[number];
