/** A count in the visitor's language (12 345 in French, 12,345 in English). */
export const formatCount = (lang: string, value: number): string => new Intl.NumberFormat(lang).format(value);

/** A time of day in the visitor's language. */
export const formatTime = (lang: string, epochMs: number): string =>
  new Date(epochMs).toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
