import { MAX_ANSWER_BYTES } from './bounded-read';
import { ANSWER_TIMEOUT_MS, TOTAL_TIMEOUT_MS, verifyDrawAt } from './verify-draw';
import { rehearseCommand } from './rehearse/command';

const USAGE = `Usage: waiting-room verify-draw <URL> [--uuid <uuid>] [--commitment <hex>] [--max-bytes <n>]
                                 [--connect-timeout <seconds>] [--timeout <seconds>]
       waiting-room rehearse --crowd <crowd> [options]   (a crowd through the server's law: --help says it)

  URL   an event's draw (https://shop.example/events/<id>/draw), or the address of the page that
        verifies it, as the waiting page links to it (…/events/<id>/verify#uuid=…&commitment=…)

Checks the draw as docs/drop-day.md states it: the seed against the commitment, the order against
HMAC-SHA256 of the seed; with a uuid, says its rank. Exits 0 when the draw checks out, 1 when it
does not, 2 when it cannot be read. It reads at most --max-bytes of the answer (${MAX_ANSWER_BYTES},
64 MiB, by default: a draw of about a million entrants), gives up when the server has not answered
within --connect-timeout (${ANSWER_TIMEOUT_MS / 1000} s) or the answer has not ended within --timeout (${TOTAL_TIMEOUT_MS / 1000} s).`;

/** The command line: its exit code. */
export async function main(args: readonly string[], out: (line: string) => void = console.log): Promise<number> {
  const [command, ...rest] = args;
  if (command === 'rehearse') return rehearseCommand(rest, out);
  if (command !== 'verify-draw') {
    out(USAGE);
    return command === undefined || command === '--help' || command === '-h' ? 0 : 2;
  }
  const options: { url?: string; uuid?: string; commitment?: string; maxBytes?: number; connectTimeoutMs?: number; timeoutMs?: number } = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--uuid' || arg === '--commitment') options[arg === '--uuid' ? 'uuid' : 'commitment'] = rest[++i];
    else if (arg === '--max-bytes' && /^[1-9]\d{0,15}$/.test(rest[i + 1] ?? '')) options.maxBytes = Number(rest[++i]);
    else if ((arg === '--connect-timeout' || arg === '--timeout') && /^(?!0+(\.0*)?$)\d{1,5}(\.\d{1,3})?$/.test(rest[i + 1] ?? '')) {
      options[arg === '--timeout' ? 'timeoutMs' : 'connectTimeoutMs'] = Math.round(Number(rest[++i]) * 1000);
    } else if (options.url === undefined && !arg.startsWith('--')) options.url = arg;
    else {
      out(USAGE);
      return 2;
    }
  }
  if (options.url === undefined) {
    out(USAGE);
    return 2;
  }
  return verifyDrawAt(options.url, options, out);
}
