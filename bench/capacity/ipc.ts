/** The benchmarks' child processes, driven by requests over Node's IPC channel. */
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';

type Message =
  | { type: 'ready'; value: unknown }
  | { type: 'request'; id: number; cmd: string; arg?: unknown }
  | { type: 'reply'; id: number; value?: unknown; error?: string }
  | { type: 'event'; name: string; value: unknown };
type Handler = (arg: never) => unknown;

/**
 * Runs inside a child: answers the parent's requests with `handlers`, after sending `ready`.
 * The child exits when the parent goes away, so that no benchmark process is left behind.
 */
export function serveRequests(ready: unknown, handlers: Record<string, Handler>): void {
  const send = (message: Message) => process.send!(message);
  if (!process.send) throw new Error('This benchmark process must be started by bench/run.ts (it needs an IPC channel).');
  process.on('message', (message: Message) => {
    if (message?.type !== 'request') return;
    const handler = handlers[message.cmd];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown command ${message.cmd}`);
        return handler(message.arg as never);
      })
      .then(
        (value) => send({ type: 'reply', id: message.id, value }),
        (error: unknown) => send({ type: 'reply', id: message.id, error: String((error as Error)?.stack ?? error) }),
      );
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', value: ready });
}

/** Runs inside a child: tells the parent something happened, unasked. */
export function sendEvent(name: string, value: unknown): void {
  process.send?.({ type: 'event', name, value } satisfies Message);
}

/** A child process of the benchmark, driven by requests; it emits each event the child sends. */
export class Child<R = unknown> extends EventEmitter {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private exitError?: Error;

  private constructor(
    readonly process: ChildProcess,
    readonly ready: R,
  ) {
    super();
    process.on('message', (message: Message) => {
      if (message?.type === 'event') this.emit(message.name, message.value);
      if (message?.type !== 'reply') return;
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(message.error));
      else waiter?.resolve(message.value);
    });
    process.on('exit', (code, signal) => {
      this.exitError = new Error(`benchmark child exited (code ${code}, signal ${signal})`);
      for (const waiter of this.pending.values()) waiter.reject(this.exitError);
      this.pending.clear();
    });
  }

  /** Forks `script` with tsx and waits for its `ready` message; `quiet`: its stdout to /dev/null (a server's log). */
  static async start<R>(script: string, options: { env?: NodeJS.ProcessEnv; execArgv?: string[]; name: string; quiet?: boolean }): Promise<Child<R>> {
    const child = fork(script, [], {
      env: options.env ?? process.env,
      execArgv: ['--import', 'tsx', ...(options.execArgv ?? [])],
      stdio: ['ignore', options.quiet ? 'ignore' : 'inherit', 'inherit', 'ipc'],
    });
    const ready = await new Promise<R>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${options.name} exited before it was ready (code ${code})`));
      child.once('exit', onExit).once('error', reject);
      child.on('message', function onMessage(message: Message) {
        if (message?.type !== 'ready') return;
        child.off('message', onMessage).off('exit', onExit);
        resolve(message.value as R);
      });
    });
    return new Child<R>(child, ready);
  }

  /** Sends `cmd` and waits for its answer. */
  request<T>(cmd: string, arg?: unknown): Promise<T> {
    if (this.exitError) return Promise.reject(this.exitError);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.process.send({ type: 'request', id, cmd, arg } satisfies Message);
    });
  }

  /** Ends the child: disconnecting makes it exit; a child that does not is killed. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    const exited = new Promise((resolve) => this.process.once('exit', resolve));
    if (this.process.connected) this.process.disconnect();
    const timer = setTimeout(() => this.process.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }
}
