/**
 * `text` as one word of a POSIX shell, whatever it holds: in single quotes, inside which nothing
 * is special, each single quote of its own closed, escaped and opened again (`'\''`).
 */
export const shellQuoted = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
