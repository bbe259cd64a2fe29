/**
 * Summarises V8 CPU profiles (`--cpu-prof`, as BENCH_CPU_PROF=1 writes for the bench server):
 * where the server's time went, by package or project folder and by function (self time).
 *
 *   node --import tsx bench/profile-summary.ts <profile file or folder> [top=25]
 *   node --import tsx bench/profile-summary.ts --holds[=20] <profile file or folder> [top=10]
 *   node --import tsx bench/profile-summary.ts --loop-holds <profile file or folder> [top=10]
 *
 * With --holds, the spans where the process was busy without a break for longer than the given
 * milliseconds instead (turns of the event loop run back to back count as one span). With
 * --loop-holds, what ran while the event loop was held: the windows the bench server recorded
 * beside each profile (`<profile>.holds.json`), each with the functions sampled in it.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Where a script belongs: a package name, a project folder, node's internals, or V8's own work. */
export function ownerOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const parts = url.slice(modules + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith('node:')) return 'node (internals)';
  const project = /\/(server|streams|bench|spec|src)\//.exec(url);
  return project ? `${project[1]}/` : url;
}

/** Self time (ms) by owner and by function, over one or more profiles. */
export function summarise(profiles: readonly Profile[]) {
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    profile.samples.forEach((id, index) => {
      const ms = (profile.timeDeltas[index] ?? 0) / 1000;
      const node = nodes.get(id);
      if (!node) return;
      const { functionName, url, lineNumber } = node.callFrame;
      total += ms;
      const owner = ownerOf(url, functionName);
      byOwner.set(owner, (byOwner.get(owner) ?? 0) + ms);
      const where = url ? `${path.basename(url)}:${lineNumber + 1}` : '';
      const name = `${functionName || '(anonymous)'} ${where} [${owner}]`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    });
  }
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return { totalMs: total, byOwner: sorted(byOwner), byFunction: sorted(byFunction) };
}

/** A span of samples without an idle one: the process busy at a stretch. */
export interface Hold {
  readonly file: string;
  /** Since the profile's start, in ms. */
  readonly atMs: number;
  readonly ms: number;
  /** Samples in the span, and the longest time between two: a span of few samples far apart is the process waiting for a core, not working. */
  readonly samples: number;
  readonly longestGapMs: number;
  /** Self time within the span by function, longest first (ms). */
  readonly byFunction: readonly [string, number][];
}

/** The spans longer than `thresholdMs` in which no sample was idle, longest first. */
export function holds(profiles: readonly { file: string; profile: Profile }[], thresholdMs: number): Hold[] {
  const found: Hold[] = [];
  for (const { file, profile } of profiles) {
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    let at = 0;
    let start = 0;
    let span = new Map<string, number>();
    let spanMs = 0;
    let samples = 0;
    let longestGapMs = 0;
    const close = () => {
      if (spanMs > thresholdMs) found.push({ file, atMs: start, ms: spanMs, samples, longestGapMs, byFunction: [...span].sort((a, b) => b[1] - a[1]) });
      span = new Map();
      spanMs = 0;
      samples = 0;
      longestGapMs = 0;
    };
    profile.samples.forEach((id, index) => {
      const ms = (profile.timeDeltas[index] ?? 0) / 1000;
      at += ms;
      const node = nodes.get(id);
      if (!node || node.callFrame.functionName === '(idle)') return close();
      if (spanMs === 0) start = at;
      spanMs += ms;
      samples += 1;
      longestGapMs = Math.max(longestGapMs, ms);
      const { functionName, url, lineNumber } = node.callFrame;
      const name = `${functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ''} [${ownerOf(url, functionName)}]`;
      span.set(name, (span.get(name) ?? 0) + ms);
    });
    close();
  }
  return found.sort((a, b) => b.ms - a.ms);
}

/** What the samples of `profile` within each window [from, to] (µs, the profile's clock) ran, by function. */
export function samplesWithin(profile: Profile & { startTime: number }, windows: readonly [number, number][]) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const found = windows.map(([from, to]) => ({ from, to, ms: (to - from) / 1000, samples: 0, byFunction: new Map<string, number>() }));
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    const window = found.find((one) => at >= one.from && at <= one.to);
    const node = nodes.get(id);
    if (!window || !node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ''} [${ownerOf(url, functionName)}]`;
    window.samples += 1;
    window.byFunction.set(name, (window.byFunction.get(name) ?? 0) + delta / 1000);
  });
  return found;
}

function printLoopHolds([target, topArg]: string[]): void {
  const files = profileFiles(target);
  let shown = 0;
  for (const file of files) {
    let windows: [number, number][];
    try {
      windows = JSON.parse(readFileSync(`${file}.holds.json`, 'utf8')) as [number, number][];
    } catch {
      continue;
    }
    const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile & { startTime: number };
    for (const hold of samplesWithin(profile, windows)
      .sort((a, b) => b.ms - a.ms)
      .slice(0, Number(topArg ?? 10))) {
      shown += 1;
      console.log(
        `${hold.ms.toFixed(1)} ms held at ${((hold.from - profile.startTime) / 1e6).toFixed(3)} s in ${path.basename(file)} (${hold.samples} samples):`,
      );
      for (const [name, ms] of [...hold.byFunction].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`  ${ms.toFixed(1).padStart(6)} ms  ${name}`);
    }
  }
  if (shown === 0) console.log('no holds recorded beside these profiles (<profile>.holds.json)');
}

function main(): void {
  const args = process.argv.slice(2);
  if (args[0] === '--loop-holds') return printLoopHolds(args.slice(1));
  const holdsArg = args.find((arg) => arg.startsWith('--holds'));
  if (holdsArg)
    return printHolds(
      Number(holdsArg.split('=')[1] ?? 20),
      args.filter((arg) => arg !== holdsArg),
    );
  const [target, topArg] = args;
  if (!target) {
    console.error('usage: node --import tsx bench/profile-summary.ts <profile file or folder> [top]');
    process.exit(2);
  }
  const files = profileFiles(target);
  const summary = summarise(files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as Profile));
  const top = Number(topArg ?? 25);
  const idle = summary.byOwner.find(([owner]) => owner === '(idle)')?.[1] ?? 0;
  const busy = summary.totalMs - idle;
  const share = (ms: number) => `${((ms / busy) * 100).toFixed(1).padStart(5)}%`;
  console.log(`${files.length} profile(s), ${(summary.totalMs / 1000).toFixed(1)} s sampled, ${(busy / 1000).toFixed(1)} s busy; shares of the busy time\n`);
  console.log('by package or folder (self time):');
  for (const [owner, ms] of summary.byOwner.filter(([owner]) => owner !== '(idle)').slice(0, top)) console.log(`  ${share(ms)}  ${owner}`);
  console.log('\nby function (self time):');
  for (const [name, ms] of summary.byFunction.filter(([name]) => !name.startsWith('(idle)')).slice(0, top)) console.log(`  ${share(ms)}  ${name}`);
}

function profileFiles(target: string): string[] {
  return statSync(target).isDirectory()
    ? readdirSync(target)
        .filter((file) => file.endsWith('.cpuprofile'))
        .map((file) => path.join(target, file))
    : [target];
}

function printHolds(thresholdMs: number, [target, topArg]: string[]): void {
  const files = profileFiles(target);
  const found = holds(
    files.map((file) => ({ file, profile: JSON.parse(readFileSync(file, 'utf8')) as Profile })),
    thresholdMs,
  );
  console.log(`${found.length} span(s) busy for over ${thresholdMs} ms without a break, in ${files.length} profile(s)\n`);
  for (const hold of found.slice(0, Number(topArg ?? 10))) {
    console.log(
      `${hold.ms.toFixed(1)} ms at ${(hold.atMs / 1000).toFixed(3)} s in ${path.basename(hold.file)} (${hold.samples} samples, longest gap ${hold.longestGapMs.toFixed(1)} ms):`,
    );
    for (const [name, ms] of hold.byFunction.slice(0, 8)) console.log(`  ${ms.toFixed(1).padStart(6)} ms  ${name}`);
  }
}

if (require.main === module) main();
