import { SERVER_VARIABLES } from '../../server/config/environment';

/** Every variable the server reads, from its declaration, with the names they had before. */
const CLEARED = new Set(SERVER_VARIABLES);

/**
 * What a server started by a test inherits from the test runner's shell: everything but the
 * server's own variables, so a `PASS_SECRET` or `ROOMS` in a developer's shell changes no test.
 */
export function inheritedEnvironment(shell: NodeJS.ProcessEnv): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(shell).filter(([name]) => !CLEARED.has(name)));
}
