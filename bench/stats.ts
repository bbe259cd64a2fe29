/** Small statistics helpers shared by the benchmarks, and Redis's and this process's own accounts as several read them. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type Redis from 'ioredis';

/** The `p`-th percentile (0–100) of `values` by nearest rank; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** The median of `values` (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** `value` rounded to `digits` decimals. */
export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** CPU seconds a process used between two `process.cpuUsage()` samples. */
export const cpuSeconds = (before: NodeJS.CpuUsage, after: NodeJS.CpuUsage) => (after.user + after.system - before.user - before.system) / 1e6;

/** p50, p90, p99 and max of a list of latencies, rounded to 0.01. */
export function distribution(values: readonly number[]): { count: number; p50: number; p90: number; p99: number; max: number } {
  const at = (p: number) => round(percentile(values, p));
  return { count: values.length, p50: at(50), p90: at(90), p99: at(99), max: at(100) };
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
export const preciseNow = (): number => performance.timeOrigin + performance.now();

/** A small seeded generator, so that every run of a benchmark draws the same numbers. */
export { mulberry32 } from '../bin/rehearse/rehearse';

/** A number `INFO` reports (`used_memory`, `used_cpu_user`…); NaN when it has none. */
export const infoField = (info: string, name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? Number.NaN);

/** Calls of `command` so far, from `INFO commandstats`. */
export const commandCalls = (info: string, command: string) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
/** The µs Redis spent running one command so far (INFO commandstats; writing the replies to their sockets is not in it). */
export const commandMicros = (info: string, command: string) => Number(new RegExp(`cmdstat_${command}:calls=\\d+,usec=(\\d+)`).exec(info)?.[1] ?? 0);

/** Redis's `used_memory`, bytes. */
export const usedMemory = async (probe: Redis) => infoField(await probe.info('memory'), 'used_memory');

/** redis-server's CPU time so far (user and system), s. */
export async function redisCpuSeconds(probe: Redis): Promise<number> {
  const info = await probe.info('cpu');
  return infoField(info, 'used_cpu_user') + infoField(info, 'used_cpu_sys');
}

/** This process's JS heap after two full collections, bytes. */
export function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
