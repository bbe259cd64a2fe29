import { DIGEST_PATTERN, verifyDraw, type DrawRecord } from '@waiting-room/streams/contract';
import { AnswerTooLarge, MAX_ANSWER_BYTES, readBounded } from './bounded-read';
import { fieldText, printable } from './terminal-text';

/** Where the draw is, and what to check it against: from the address given (draw or verify page) and the options. */
export function drawRequestOf(address: string, options: { uuid?: string; commitment?: string } = {}): { url: string; uuid?: string; commitment?: string } {
  const url = new URL(address);
  const fragment = new URLSearchParams(url.hash.slice(1));
  url.hash = '';
  url.pathname = url.pathname.replace(/\/verify$/, '/draw');
  const uuid = options.uuid ?? fragment.get('uuid') ?? undefined;
  const commitment = options.commitment ?? fragment.get('commitment') ?? undefined;
  return { url: url.toString(), ...(uuid && { uuid }), ...(commitment && { commitment }) };
}

/** What `verifyDrawAt` checks the draw against, and how much of the answer it reads at most. */
export interface VerifyDrawOptions {
  readonly uuid?: string;
  readonly commitment?: string;
  /** Most bytes read of the answer (`MAX_ANSWER_BYTES` by default). */
  readonly maxBytes?: number;
  /** How long the server may take to answer (its headers), connecting included (`ANSWER_TIMEOUT_MS` by default). */
  readonly connectTimeoutMs?: number;
  /** How long the whole answer may take (`TOTAL_TIMEOUT_MS` by default). */
  readonly timeoutMs?: number;
}

/** The server must connect and start answering within this. */
export const ANSWER_TIMEOUT_MS = 10_000;
/** The whole answer must have come within this: 64 MiB at about 5 Mbit/s. */
export const TOTAL_TIMEOUT_MS = 120_000;

/** The columns of the labels, after which each field of the answer starts. */
const LABEL = 13;

/**
 * `waiting-room verify-draw`: reads the draw at `address` and checks it with the contract's
 * `verifyDraw` (Web Crypto, as the verify page does in a browser), printing what it checked.
 * The server is the one being audited, so nothing it answers is trusted: the answer is read up to
 * `maxBytes` and for a bounded time, every line is printed without its control and format
 * characters (`printable`), and each field of the answer is quoted and cut to fit its line (`fieldText`).
 * Answers the exit code: 0 the draw checks out, 1 it does not, 2 it could not be read.
 */
export async function verifyDrawAt(address: string, options: VerifyDrawOptions, print: (line: string) => void): Promise<number> {
  const out = (line: string) => print(printable(line));
  let request: ReturnType<typeof drawRequestOf>;
  try {
    request = drawRequestOf(address, options);
  } catch {
    out(`Not a URL: ${address}`);
    return 2;
  }
  const limit = options.maxBytes ?? MAX_ANSWER_BYTES;
  const answerMs = options.connectTimeoutMs ?? ANSWER_TIMEOUT_MS;
  const totalMs = options.timeoutMs ?? TOTAL_TIMEOUT_MS;
  // A server that accepts the connection and never answers, or answers a byte a minute, is given up on.
  const stop = new AbortController();
  let late: string | undefined;
  const giveUp = (why: string) => () => {
    late = why;
    stop.abort();
  };
  const answerTimer = setTimeout(giveUp(`no answer within ${seconds(answerMs)} (--connect-timeout allows longer)`), answerMs);
  const totalTimer = setTimeout(giveUp(`the answer did not end within ${seconds(totalMs)}, and was not read further (--timeout allows longer)`), totalMs);
  let record: DrawRecord;
  try {
    const response = await fetch(request.url, { headers: { accept: 'application/json' }, signal: stop.signal });
    clearTimeout(answerTimer);
    const body = parsed(await readBounded(response, limit)) as (DrawRecord & { error?: { message?: unknown } }) | null;
    if (!response.ok || typeof body !== 'object' || body === null) {
      out(`The draw could not be read at ${request.url}: ${response.status}`);
      if (typeof body === 'object' && body?.error?.message !== undefined) out(`Its answer:  ${fieldText(body.error.message, LABEL)}`);
      return 2;
    }
    record = body;
  } catch (error) {
    if (late !== undefined) out(`The draw could not be read at ${request.url}: ${late}.`);
    else if (error instanceof AnswerTooLarge) {
      out(`The draw could not be read at ${request.url}: its answer is larger than ${limit} bytes, and was not read further (--max-bytes allows more).`);
    } else out(`The draw could not be read at ${request.url}: ${(error as Error).message}`);
    return 2;
  } finally {
    clearTimeout(answerTimer);
    clearTimeout(totalTimer);
  }
  out(`What the server answers, each field in quotes:`);
  if (record.name !== undefined) out(`Event:       ${fieldText(record.name, LABEL)}`);
  out(`Event id:    ${fieldText(record.event, LABEL)}`);
  out(`Entrants:    ${fieldText(record.entrants, LABEL)}`);
  out(`Commitment:  ${fieldText(record.commitment, LABEL)}`);
  if (request.commitment)
    out(request.commitment === record.commitment ? '             (the one given)' : `             (given: ${fieldText(request.commitment, LABEL)})`);
  if (record.seed === undefined) {
    out('The draw is not done yet: its seed is revealed at the opening. Keep the commitment to check it then.');
    return 1;
  }
  out(`Seed:        ${fieldText(record.seed, LABEL)}`);
  if (request.commitment !== undefined && !DIGEST_PATTERN.test(request.commitment)) out('(the commitment given is not 64 lowercase hex digits)');
  const verdict = await verifyDraw(record, request);
  out(`Order:       ${Array.isArray(record.order) ? record.order.length : 0} tickets, sorted by HMAC-SHA256 of the seed`);
  if (verdict.ticket !== null) out(`Your ticket: ${verdict.ticket}${verdict.rank !== null ? `, drawn ${verdict.rank} of ${verdict.entrants}` : ''}`);
  if (verdict.ok) {
    out('The draw checks out: the seed is the one committed to, and the order follows from it.');
    return 0;
  }
  out('The draw does NOT check out:');
  for (const problem of verdict.problems) out(`  - ${printable(problem.message, 200)}`);
  return 1;
}

/** `ms` as the user gave it, in seconds. */
const seconds = (ms: number): string => `${ms / 1000} s`;

/** JSON text as a value, or null when it is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
