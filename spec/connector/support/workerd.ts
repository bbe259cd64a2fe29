import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { build } from 'esbuild';
import { parse } from 'smol-toml';
import { closedPort } from '../../support/closed-port';

const ROOT = path.resolve(__dirname, '../../..');
/** The example docs/adopt.md points a Workers developer to. */
export const WORKER_EXAMPLE = path.join(ROOT, 'connector/examples/worker');
/**
 * The runtime binary of this platform's `@cloudflare/workerd-*` package, as the `workerd`
 * package finds it (its `bin/workerd` may be a Node launcher in front of it, which a signal
 * would stop without stopping the runtime).
 */
const WORKERD_BIN = (createRequire(__filename)('workerd') as { default: string }).default;

/** A Worker served by workerd on loopback. */
export interface WorkerdServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** What workerd printed: the Worker's console and its own errors. */
  output(): string;
  close(): Promise<void>;
}

/**
 * The Worker at `entry` as wrangler would ship it: one ES module, bundled by esbuild for a
 * runtime with no Node APIs, imports resolved under the `workerd` and `worker` conditions, the
 * workspace package from its sources (tsconfig.json's paths).
 */
export async function bundleWorker(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/** The example's wrangler.toml: its entry, compatibility date and `[vars]`. */
export async function exampleSettings(): Promise<{ main: string; compatibilityDate: string; vars: Record<string, string> }> {
  const toml = parse(await readFile(path.join(WORKER_EXAMPLE, 'wrangler.toml'), 'utf8')) as {
    main: string;
    compatibility_date: string;
    vars?: Record<string, string>;
  };
  return { main: path.join(WORKER_EXAMPLE, toml.main), compatibilityDate: toml.compatibility_date, vars: toml.vars ?? {} };
}

/** A capnp text literal. */
const text = (value: string) => JSON.stringify(value);

/**
 * workerd serving `script` (one ES module) on loopback, on `port` or one the system gives it,
 * with `bindings` as its text bindings (what `[vars]` and `wrangler secret put` give a deployed
 * Worker). Its fetch() may reach loopback and private addresses, where the site and the waiting
 * room run in tests; workerd's default network allows public addresses only. Resolves once
 * workerd says it listens (its control fd), with the port it listens on.
 */
export async function startWorkerd(options: {
  script: string;
  bindings: Record<string, string>;
  compatibilityDate: string;
  port?: number;
}): Promise<WorkerdServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'workerd-'));
  await writeFile(path.join(dir, 'worker.js'), options.script);
  const bindings = Object.entries(options.bindings)
    .map(([name, value]) => `(name = ${text(name)}, text = ${text(value)})`)
    .join(',\n      ');
  await writeFile(
    path.join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "network", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${options.port ?? 0}", http = (), service = "main")],
);

const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = ${text(options.compatibilityDate)},
  bindings = [
      ${bindings}
  ],
  globalOutbound = "network",
);
`,
  );
  // fd 3 is workerd's control fd: it writes `{"event":"listen","socket":"http","port":…}` there.
  const child: ChildProcess = spawn(WORKERD_BIN, ['serve', 'config.capnp', '--verbose', '--control-fd=3'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`workerd did not listen within 30 s:\n${output}`)), 30_000);
      let control = '';
      (child.stdio[3] as Readable).on('data', (chunk: Buffer) => {
        control += chunk.toString();
        for (const line of control.split('\n').slice(0, -1)) {
          const message = JSON.parse(line) as { event?: string; socket?: string; port?: number };
          if (message.event === 'listen' && message.socket === 'http' && typeof message.port === 'number') {
            clearTimeout(timer);
            resolve(message.port);
          }
        }
        control = control.slice(control.lastIndexOf('\n') + 1);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`workerd exited with ${code}:\n${output}`));
      });
    });
    return { url: `http://127.0.0.1:${port}`, port, output: () => output, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The example Worker (connector/examples/worker), bundled, in workerd with its wrangler.toml's
 * vars, `secret` as WAITING_ROOM_PASS_SECRET, and `vars` over them (the test's waiting room and
 * origin), on `port` or a free one.
 */
export async function startExampleWorker(options: { secret: string; vars: Record<string, string>; port?: number }): Promise<WorkerdServer> {
  const settings = await exampleSettings();
  return startWorkerd({
    port: options.port,
    script: await bundleWorker(settings.main),
    compatibilityDate: settings.compatibilityDate,
    bindings: { ...settings.vars, ...options.vars, WAITING_ROOM_PASS_SECRET: options.secret },
  });
}

/**
 * Runs `start` with a free loopback port for the Worker, again with another (up to `attempts`
 * times) when it fails: a port free when chosen may be taken before workerd binds it, and what
 * names the Worker's address (a waiting room that takes its origin) must then start again too.
 * `start` closes what it started before it fails.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await closedPort());
    } catch (error) {
      if (attempt >= attempts) throw error;
    }
  }
}
