/**
 * Summarises V8 CPU profiles (`--cpu-prof`, as BENCH_CPU_PROF=1 writes for the bench server):
 * where the server's time went, by package or project folder and by function (self time).
 *
 *   node --import tsx bench/profile-summary.ts <profile file or folder> [top=25]
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

function main(): void {
  const [target, topArg] = process.argv.slice(2);
  if (!target) {
    console.error('usage: node --import tsx bench/profile-summary.ts <profile file or folder> [top]');
    process.exit(2);
  }
  const files = statSync(target).isDirectory()
    ? readdirSync(target).filter((file) => file.endsWith('.cpuprofile')).map((file) => path.join(target, file))
    : [target];
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

if (require.main === module) main();
