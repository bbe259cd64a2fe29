import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

/** What `npm pack --json` says of the tarball. */
export interface Packed {
  readonly name: string;
  readonly version: string;
  readonly filename: string;
  readonly files: ReadonlyArray<{ readonly path: string }>;
}

/** The package as an outside project gets it: packed, then installed into a project of its own. */
export interface InstalledPackage {
  readonly packed: Packed;
  /** The outside project: a copy of spec/package/consumer, with its node_modules. */
  readonly consumer: string;
  /** The package as installed there. */
  readonly installed: string;
  remove(): Promise<void>;
}

/**
 * Packs `streams/` (`prepack` builds dist afresh) and installs the tarball into a copy of
 * spec/package/consumer, with the rxjs and pusher-js the repository itself is tested with (npm
 * takes them from its cache when they are there). Packed from a copy of its sources, so that two
 * test files packing it at once never build into the same dist/; the tools come from the
 * repository's node_modules.
 */
export async function packAndInstall(): Promise<InstalledPackage> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wr-package-'));
  try {
    const sources = path.join(dir, 'streams');
    await cp(path.join(ROOT, 'streams'), sources, { recursive: true, filter: (from) => !/[\\/](dist|node_modules)$/.test(from) });
    await symlink(path.join(ROOT, 'node_modules'), path.join(sources, 'node_modules'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: sources });
    const [packed] = JSON.parse(stdout) as Packed[];
    if (!packed) throw new Error(`npm pack said nothing of a tarball: ${stdout}`);
    const consumer = path.join(dir, 'consumer');
    await cp(path.join(ROOT, 'spec/package/consumer'), consumer, { recursive: true });
    const { dependencies } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        path.join(dir, packed.filename),
        `rxjs@${dependencies.rxjs}`,
        `pusher-js@${dependencies['pusher-js']}`,
      ],
      { cwd: consumer },
    );
    return { packed, consumer, installed: path.join(consumer, 'node_modules/@waiting-room/streams'), remove: () => rm(dir, { recursive: true, force: true }) };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
