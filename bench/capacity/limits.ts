import { readFileSync } from 'node:fs';

/** This process's open-file limit (soft, hard), from /proc; undefined where /proc is missing. */
export function openFileLimit(): { soft: number; hard: number } | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((row) => row.startsWith('Max open files'));
    const [soft, hard] = (line?.match(/(\d+|unlimited)/g) ?? []).map((value) => (value === 'unlimited' ? Infinity : Number(value)));
    return soft === undefined || hard === undefined ? undefined : { soft, hard };
  } catch {
    return undefined;
  }
}

/** The local port range the kernel picks client ports from; each held socket takes one. */
export function localPortRange(): { low: number; high: number } | undefined {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return { low, high };
  } catch {
    return undefined;
  }
}
