/** Redis's and this process's own accounts, as several benchmarks read them. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type Redis from 'ioredis';

/** A number `INFO` reports (`used_memory`, `used_cpu_user`…); NaN when it has none. */
export const infoField = (info: string, name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? Number.NaN);

/** Calls of `command` so far, from `INFO commandstats`. */
export const commandCalls = (info: string, command: string) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);

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
