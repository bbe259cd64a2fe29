/** What the benchmarks' child processes answer over IPC (`ipc.ts`). */

/** What the benchmark's server (`server.ts`) says once it listens: where, and its process. */
export interface ServerReady {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
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
