/** The slow phone every page figure is measured on, in Chromium. */
/** DevTools' "Fast 3G" preset (its NetworkManager.ts): 1.44 Mbit/s down, 675 Kbit/s up, 562.5 ms; in bytes a second. */
export const FAST_3G = { latency: 562.5, downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9, uploadThroughput: ((750 * 1000) / 8) * 0.9 } as const;
/** DevTools' "4× slowdown" (`Emulation.setCPUThrottlingRate`). */
export const CPU_SLOWDOWN = 4;
