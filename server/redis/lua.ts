import { readFileSync } from 'node:fs';
import path from 'node:path';

const read = new Map<string, string>();

/**
 * The text of a Lua script kept among the server's sources, by its path from `server/` (e.g.
 * `store/redis/lua/admit.lua`), read from disk once. The production bundle (`build-server.mjs`)
 * puts another module in this one's place, holding every `.lua` file's text, so that
 * `dist/server.js` needs no sources beside it.
 */
export function readLua(file: string): string {
  let text = read.get(file);
  if (text === undefined) {
    text = readFileSync(path.join(__dirname, '..', file), 'utf8');
    read.set(file, text);
  }
  return text;
}
