import table from './doors.json';

/**
 * The doors' conformance table (`doors.json`): one list of requests and what every door must do
 * with each, run against the gateway, Express, Fastify, the Next.js middleware, the `Request`
 * core in Node, and the `Request` core inside workerd. The shape is shared with the workerd
 * runner: fields may be added, optional only.
 */

/** The doors that run the table, by the names `doors` overrides use. */
export type Door = 'gateway' | 'express' | 'fastify' | 'next' | 'request' | 'workerd';

/** `site`: the site's handler runs; `wait-browser`: sent to wait (a redirect, or the waiting page); `wait-api`: JSON with 503 (or the configured status); `refused`: a 4xx, the handler not run. */
export type Outcome = 'site' | 'wait-browser' | 'wait-api' | 'refused';

/** `valid`: signed for this room and this browser's visitor cookie; `forged`: another secret; `other-visitor`; `expired`; `revoked`: valid, then revoked through the door. */
export type PassKind = 'none' | 'valid' | 'forged' | 'other-visitor' | 'expired' | 'revoked';

export interface DoorCase {
  readonly name: string;
  readonly method: string;
  /** The request target exactly as sent on the request line. */
  readonly target: string;
  /** Sent as given, names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly pass: PassKind;
  readonly expect: Outcome;
  /** A door where the difference is stated in the core's types, with `why`. */
  readonly doors?: Partial<Record<Door, Outcome>>;
  readonly why?: string;
  /**
   * Optional: what a connector does with the `waiting_room_visitor` cookie sent: `replaced` (the
   * answer sets a fresh, well-formed id) or `kept` (it sets none). The gateway names a visitor by
   * its own session, and skips it.
   */
  readonly visitorCookie?: 'replaced' | 'kept';
}

export interface DoorTable {
  readonly room: string;
  readonly protect: readonly string[];
  readonly cases: readonly DoorCase[];
}

const OUTCOMES: readonly string[] = ['site', 'wait-browser', 'wait-api', 'refused'];
const PASSES: readonly string[] = ['none', 'valid', 'forged', 'other-visitor', 'expired', 'revoked'];

/** The table, checked: a malformed case fails every door's run at once, naming the case. */
export const DOORS: DoorTable = checked(table as unknown as DoorTable);

/** What `door` must do with `test`. */
export function expected(test: DoorCase, door: Door): Outcome {
  return test.doors?.[door] ?? test.expect;
}

/** `[name, case]` pairs for `test.each`, so that a failure names its case. */
export function casesFor(door: Door): ReadonlyArray<readonly [string, DoorCase]> {
  return DOORS.cases.map((test) => [`${test.name} (${expected(test, door)})`, test] as const);
}

function checked(table: DoorTable): DoorTable {
  const names = new Set<string>();
  for (const test of table.cases) {
    const problem =
      (names.has(test.name) && 'its name is taken') ||
      (!OUTCOMES.includes(test.expect) && `expect "${test.expect}" is no outcome`) ||
      (!PASSES.includes(test.pass) && `pass "${test.pass}" is no pass`) ||
      (test.doors && !test.why && 'it overrides a door without a "why"') ||
      (test.doors && Object.values(test.doors).some((outcome) => !OUTCOMES.includes(outcome)) && 'a door override is no outcome') ||
      // A protected request is never the site's without a valid pass, at any door.
      ([test.expect, ...Object.values(test.doors ?? {})].includes('site') &&
        test.pass !== 'none' &&
        test.pass !== 'valid' &&
        'it lets a request through with a pass that is not valid');
    if (problem) throw new Error(`doors.json, case "${test.name}": ${problem}.`);
    names.add(test.name);
  }
  return table;
}
