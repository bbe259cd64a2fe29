import { BOT_CHALLENGES } from '../../config/choices';

/** What the bot check asks of a held visitor: nothing, or a proof of work (see docs/bot-check.md). */
export { BOT_CHALLENGES };
export type BotChallengeMode = (typeof BOT_CHALLENGES)[number];
