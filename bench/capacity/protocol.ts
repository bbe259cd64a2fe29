/** Messages between the capacity benchmark's orchestrator and its child processes (over IPC). */

/** What a child sends once it is ready for requests. */
export interface Ready<T = unknown> {
  readonly type: 'ready';
  readonly value: T;
}

/** What the benchmark's server (`server.ts`) says once it listens: where, and its process. */
export interface ServerReady {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
}

/** A request to a child: a command name and its argument. */
export interface Request {
  readonly type: 'request';
  readonly id: number;
  readonly cmd: string;
  readonly arg?: unknown;
}

/** A child's answer to the request with the same id. */
export interface Reply {
  readonly type: 'reply';
  readonly id: number;
  readonly value?: unknown;
  readonly error?: string;
}

/** Something a child tells its parent unasked (e.g. a visitor was released). */
export interface ChildEvent {
  readonly type: 'event';
  readonly name: string;
  readonly value: unknown;
}

/** `process.memoryUsage()` after a full garbage collection, in bytes. */
export interface MemorySample {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
}

/** Process CPU time in microseconds (user + system), to tell who was busy during a phase. */
export interface CpuSample {
  readonly user: number;
  readonly system: number;
}
