/**
 * The kernel's floor for a fan-out (`write-floor.c`): one write(2) a socket to N loopback sockets
 * from C, compiled here with the system's C compiler. Beside the bare Node loop (`bare-fanout.ts`)
 * it says how much of a socket write is the runtime's and how much no program can avoid, and so
 * the least time one process takes to reach N sockets on this machine. Without a C compiler the
 * figure is left out, with the reason.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { median } from '../stats';

export type KernelFloor =
  { readonly sockets: number; readonly rounds: number; readonly microsPerSocket: number; readonly msForSockets: number } | { readonly skipped: string };

/** Compiles and runs the C floor with `sockets` sockets and `frameBytes`-byte frames, median of `rounds`. */
export function kernelFloor(sockets: number, rounds: number, frameBytes: number): KernelFloor {
  const dir = mkdtempSync(path.join(tmpdir(), 'write-floor-'));
  try {
    const binary = path.join(dir, 'write-floor');
    try {
      execFileSync(process.env.CC ?? 'cc', ['-O2', '-o', binary, path.join(__dirname, 'write-floor.c')], { stdio: 'pipe' });
    } catch (error) {
      return { skipped: `no C compiler to build write-floor.c (${(error as Error).message.split('\n')[0]})` };
    }
    const output = execFileSync(binary, [String(sockets), String(rounds), String(frameBytes)], { encoding: 'utf8', timeout: 60_000 });
    const measured = JSON.parse(output) as { sockets: number; rounds: number; microsPerSocket: number[] };
    const microsPerSocket = Math.round(median(measured.microsPerSocket) * 100) / 100;
    return { sockets: measured.sockets, rounds, microsPerSocket, msForSockets: Math.round(measured.sockets * microsPerSocket) / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
