import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/**
 * The V8 CPU profiler of this process, for a bench child's IPC (BENCH_CPU_PROF=1): `profileStart`
 * begins sampling every 200 µs, `profileStop` writes the profile to `file`, to see where a
 * phase's time goes.
 */
export function cpuProfiler(): { profileStart(): Promise<void>; profileStop(file: string): Promise<string> } {
  const profiler = new Session();
  profiler.connect();
  return {
    async profileStart() {
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
      await profiler.post('Profiler.start');
    },
    async profileStop(file) {
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}
