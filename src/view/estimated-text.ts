import type { Texts } from '../i18n/texts';

/** The estimated wait, in whole minutes, as a sentence. */
export const estimatedText = ({ t }: Texts, minutes: number): string => (minutes < 1 ? t('page.estimatedSoon') : t('page.estimated', { count: minutes }));
