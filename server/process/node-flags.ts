import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './project-root';

/**
 * The flags Node runs the server with, from package.json's `config.nodeFlags`: `npm start` passes
 * them, the container's command repeats them (a test holds the two equal), and the benchmarks and
 * the end-to-end tests start the server with them, so that what they measure is what runs.
 *
 * `--min-semi-space-size=16` keeps V8's young generation at its full 16 MB. Left to itself V8
 * (Node 22's; Node 24's keeps it grown) shrinks it while the server is idle and grows it back
 * only after a run of scavenges: the first
 * second of a crowd after a quiet spell (the queue opening, a release after a pause) then ran a
 * scavenge every few ms, and held the event loop past 20 ms a dozen times.
 *
 * `--no-allocation-site-pretenuring`: V8 otherwise starts allocating an object straight in the old
 * generation once objects from the same place in the code were seen to live long, and rarely goes
 * back. Requests waiting on Redis taught it that of many places of the request path, and from
 * then on their objects were born old and kept what they pointed to alive through each scavenge:
 * three times the GC time, for as long as the process ran. docs/performance.md has both measured.
 */
export const NODE_FLAGS: readonly string[] = (
  JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { config: { nodeFlags: string } }
).config.nodeFlags
  .split(' ')
  .filter(Boolean);
