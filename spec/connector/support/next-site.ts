import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '../../support/eventually';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
/** The example docs point a Next.js developer to. */
export const NEXT_EXAMPLE = path.join(ROOT, 'connector/examples/next');
const NEXT_BIN = path.join(ROOT, 'node_modules/next/dist/bin/next');

/** Offline, quiet builds: no telemetry (Next.js would send it), no update check. */
const NEXT_ENV = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' };

/** A `next start` of the example, listening on loopback. */
export interface NextSite {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Builds the connector's package (its `build` script: dist/ as the package ships it, which the
 * example imports by name through the workspace), then the example with `next build`, in place
 * (its .next/ is ignored by git). Fails with the build's own output.
 */
export async function buildNextExample(): Promise<void> {
  const step = async (file: string, args: string[], cwd: string): Promise<void> => {
    try {
      await run(file, args, { cwd, env: NEXT_ENV, maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`${[file, ...args].join(' ')} failed:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error });
    }
  };
  await step('npm', ['run', 'build', '--workspace', 'connector'], ROOT);
  await step(process.execPath, [NEXT_BIN, 'build'], NEXT_EXAMPLE);
}

/**
 * `next start` of the built example on `127.0.0.1:port`, sending visitors to `waitingRoom`;
 * resolves once its home page answers. `hostname` is the name the site is reached by.
 */
export async function startNextSite(options: { port: number; hostname: string; waitingRoom: string; secret: string }): Promise<NextSite> {
  const child: ChildProcess = spawn(process.execPath, [NEXT_BIN, 'start', '--port', String(options.port), '--hostname', '127.0.0.1'], {
    cwd: NEXT_EXAMPLE,
    env: { ...NEXT_ENV, WAITING_ROOM_URL: options.waitingRoom, PASS_SECRET: options.secret },
    // Its own process group, so that closing it ends whatever it started too.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  };
  const url = `http://${options.hostname}:${options.port}`;
  try {
    await eventually(
      `next start at ${url}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}:\n${output}`);
        return (await fetch(`http://127.0.0.1:${options.port}/`)).status;
      },
      (status) => status === 200,
      60_000,
      200,
    );
  } catch (error) {
    await close();
    throw error;
  }
  return { url, close };
}
