import { DIGEST_PATTERN, verifyDraw, type DrawRecord } from '@waiting-room/streams/contract';

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

/**
 * `waiting-room verify-draw`: reads the draw at `address` and checks it with the contract's
 * `verifyDraw` (Web Crypto, as the verify page does in a browser), printing what it checked.
 * Answers the exit code: 0 the draw checks out, 1 it does not, 2 it could not be read.
 */
export async function verifyDrawAt(address: string, options: { uuid?: string; commitment?: string }, out: (line: string) => void): Promise<number> {
  let request: ReturnType<typeof drawRequestOf>;
  try {
    request = drawRequestOf(address, options);
  } catch {
    out(`Not a URL: ${address}`);
    return 2;
  }
  let record: DrawRecord;
  try {
    const response = await fetch(request.url, { headers: { accept: 'application/json' } });
    const body = (await response.json().catch(() => null)) as (DrawRecord & { error?: { message?: string } }) | null;
    if (!response.ok || body === null) {
      out(`The draw could not be read at ${request.url}: ${response.status}${body?.error?.message ? ` ${body.error.message}` : ''}`);
      return 2;
    }
    record = body;
  } catch (error) {
    out(`The draw could not be read at ${request.url}: ${(error as Error).message}`);
    return 2;
  }
  out(`Event:       ${record.name ? `${record.name} (${record.event})` : record.event}`);
  out(`Entrants:    ${record.entrants}`);
  out(
    `Commitment:  ${record.commitment}${request.commitment ? (request.commitment === record.commitment ? ' (the one given)' : ` (given: ${request.commitment})`) : ''}`,
  );
  if (record.seed === undefined) {
    out('The draw is not done yet: its seed is revealed at the opening. Keep the commitment to check it then.');
    return 1;
  }
  out(`Seed:        ${record.seed}`);
  if (request.commitment !== undefined && !DIGEST_PATTERN.test(request.commitment)) out('(the commitment given is not 64 lowercase hex digits)');
  const verdict = await verifyDraw(record, request);
  out(`Order:       ${Array.isArray(record.order) ? record.order.length : 0} tickets, sorted by HMAC-SHA256 of the seed`);
  if (verdict.ticket !== null) out(`Your ticket: ${verdict.ticket}${verdict.rank !== null ? `, drawn ${verdict.rank} of ${verdict.entrants}` : ''}`);
  if (verdict.ok) {
    out('The draw checks out: the seed is the one committed to, and the order follows from it.');
    return 0;
  }
  out('The draw does NOT check out:');
  for (const problem of verdict.problems) out(`  - ${problem.message}`);
  return 1;
}
