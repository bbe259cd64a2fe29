/**
 * Every environment variable of the server, declared once: its JSON schema (type, range,
 * default) and what the documentation says of it. `loadConfig` validates the environment against
 * it, and `npm run docs:config` writes docs/configuration.md from it.
 *
 * Beside the JSON Schema keywords, a variable may carry:
 * - `section`: the section of the documentation it is in;
 * - `accepts`: what a string holds, where its type says too little (a URL, a list, JSON);
 * - `unset`: what an unset variable means, where no fixed `default` says it;
 * - `hint`: how to make a good value, added to the message when one is refused;
 * - `formerly`: names it had before, still read (with a notice at start).
 */
export const CONFIG_KEYWORDS = ['section', 'accepts', 'unset', 'hint', 'formerly'] as const;

/** Shortest ADMIN_TOKEN accepted: a guessable token opens the admin API to anyone. */
export const ADMIN_TOKEN_MIN_LENGTH = 24;

/** Most key derivations a solution may be asked to take: at the defaults, minutes in a browser. */
export const MAX_DIFFICULTY = 100_000;

/**
 * The difficulty a solution is asked at by default: its median time in a browser on a slow phone
 * (Chromium with the CPU 4× slower) stays under 1.5 s with room to spare, on a busy 2-core machine
 * too (`npm run bench`, docs/bot-check.md): at 150 and 200 the slower reading of it missed.
 */
export const DEFAULT_DIFFICULTY = 100;

export const WEEK_SECONDS = 7 * 24 * 3600;

/**
 * How long a waiting place is kept for a visitor who is away, by default: 30 minutes. Waits on a
 * busy day run from minutes to an hour or more, and a phone locked in a pocket, a meeting or a
 * commute's stop away from the tab fit in it; Cloudflare's 5 minutes lose those. Longer keeps
 * more of those who never come back in the line, counted in the positions of those who wait
 * (docs/places.md).
 */
export const AWAY_SECONDS_DEFAULT = 1800;

/** The documentation's sections, in order, each with what it says before its table. */
export const SECTIONS = {
  listen: { title: 'Where it listens' },
  origin: { title: 'The origin and what is held', intro: 'The gateway and its rooms: [gateway.md](gateway.md) says how it stands in front of a site.' },
  admission: {
    title: 'Admission',
    intro:
      'How many are let in, and how fast; [adaptive-admission.md](adaptive-admission.md) says how adaptive admission finds the rate and how to choose its target.',
  },
  connector: {
    title: 'Connectors and the pass',
    intro: "For a site that checks the waiting room's signed pass itself, in its own framework: [adopt.md](adopt.md) says how.",
  },
  secrets: { title: 'Access and secrets', intro: 'Every instance on Redis must have the same `SESSION_SECRET`, `PUSHER_SECRET` and `ADMIN_TOKEN`.' },
  store: { title: 'Where the line is kept' },
  realtime: { title: 'Realtime', intro: "The embedded Pusher-protocol server answers on the gateway's own port unless an outside one is set." },
  page: { title: 'The waiting page' },
  botCheck: { title: 'The bot check' },
  limits: {
    title: 'Limits',
    intro: 'Every client is untrusted: each request, socket and report has a bounded cost. These bounds can be changed; the fixed ones follow.',
  },
} as const;

export type Section = keyof typeof SECTIONS;

/** A whole number of seconds between two bounds. */
export const seconds = (section: Section, minimum: number, maximum: number) => ({ type: 'integer', section, minimum, maximum }) as const;

/** One variable's schema, as the documentation and the messages read it. */
export interface VariableSchema {
  readonly type: 'string' | 'integer' | 'number' | 'boolean';
  readonly section: Section;
  readonly description: string;
  readonly default?: string | number | boolean;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly enum?: readonly string[];
  readonly accepts?: string;
  readonly unset?: string;
  readonly hint?: string;
  readonly formerly?: readonly string[];
}
