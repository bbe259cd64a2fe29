import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { builtServerScript } from './run-build';
import { ensureWaitingPageBuilt } from './waiting-page-built';
import { NODE_FLAGS } from '../../server/process/node-flags';
import { inheritedEnvironment } from './server-environment';

const ROOT = path.resolve(__dirname, '../..');
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
/** What `npm start` runs, as `build-server.mjs` built it for this run (`run-build.ts`). */
const SERVER_SCRIPT = builtServerScript();
/** `main.ts` says where it listens in this line. */
const LISTENING = /Waiting Room in front of .*?: open (http:\/\/\S+?)\/ /;

/** One `npm start` server running as its own process. */
export interface ServerProcess {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Everything it printed so far (stdout and stderr), for failure messages. */
  output(): string;
  /** Whether it is still running. */
  running(): boolean;
  /** Sends SIGTERM, as a process manager does, and waits for the exit code (SIGKILL after 10 s). */
  stop(): Promise<number | null>;
  /** Sends SIGKILL, as `kill -9` or a crash does (no chance to save anything), and waits until it has exited. */
  kill(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts the server as `npm start` does after its builds (`node <package.json's config.nodeFlags> dist/server.js`,
 * this run's build of it, from the sources as they were when the run began),
 * with `env` as its whole server configuration (quiet logs unless `LOG_LEVEL` is given), and
 * waits until it says where it listens. `port` 0 (the default) is a free one; give the port of
 * a stopped process to start it again at the same address.
 */
export async function startServerProcess(env: Record<string, string>, port = 0): Promise<ServerProcess> {
  await ensureWaitingPageBuilt();
  if (!existsSync(SERVER_SCRIPT))
    throw new Error(`${SERVER_SCRIPT} is missing: the global set-up (spec/support/global-setup.ts) builds it before the tests run.`);
  return launch(env, port);
}

/** Stops every server process still running (for `afterAll`, whatever happened). */
export async function stopAllServerProcesses(): Promise<void> {
  await Promise.all([...running].map((child) => terminate(child)));
}

async function launch(env: Record<string, string>, port: number): Promise<ServerProcess> {
  const inherited = inheritedEnvironment(process.env);
  const child = spawn(process.execPath, [...NODE_FLAGS, SERVER_SCRIPT], {
    cwd: ROOT,
    env: { ...inherited, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(`did not say where it listens within ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
    const onData = () => {
      const found = LISTENING.exec(output)?.[1];
      if (found) settle(() => resolve(found));
    };
    const onExit = (code: number | null, signal: string | null) => fail(`exited (${signal ?? code}) before listening`);
    const settle = (then: () => void) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      then();
    };
    const fail = (why: string) => {
      child.kill('SIGKILL');
      settle(() => reject(new Error(`The server process ${why}:\n${output}`)));
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });

  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid ?? 0,
    output: () => output,
    running: () => child.exitCode === null && child.signalCode === null,
    stop: () => terminate(child),
    kill: () => kill(child),
  };
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

function terminate(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}
