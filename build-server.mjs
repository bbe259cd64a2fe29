/**
 * Builds the server (and the demo shop) to plain JavaScript with esbuild, so that production runs
 * `node dist/server.js` instead of transpiling the TypeScript at every start: one CommonJS file
 * each, with its source map (run node with --enable-source-maps for stack traces in the sources).
 * The installed packages stay outside the bundle, loaded from node_modules as usual; a package
 * linked into node_modules from this repository (a workspace) is bundled, since it ships sources.
 * So are the Redis scripts (every `.lua` file under `server/`), which the sources read from disk
 * (`luaScripts`).
 *
 * The outputs sit one folder below the repository root, as `server/` does, so that the server
 * finds `public/` the same way from either.
 *
 *   node build-server.mjs                                   build dist/server.js and dist/demo.js
 *   import { buildServer } from './build-server.mjs'        the same from a test or a benchmark
 */
import * as esbuild from 'esbuild';
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));

/** What `npm start` and the container run: entry → output, relative to the root. */
export const SERVER_OUTPUTS = { 'bin/server.ts': 'dist/server.js', 'demo/main.ts': 'dist/demo.js' };

/** Production dependencies installed from the registry: loaded from node_modules, not bundled. */
function installedPackages() {
  const { dependencies = {} } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return Object.keys(dependencies).filter((name) => {
    try {
      return !lstatSync(path.join(root, 'node_modules', name)).isSymbolicLink();
    } catch {
      return true;
    }
  });
}

/** The module that reads the server's Lua scripts from disk (`server/redis/lua.ts`). */
const LUA_READER = path.join(root, 'server', 'redis', 'lua.ts');

/**
 * Bundles the server's Lua scripts: in place of `readLua` reading them from disk, a module that
 * holds the text of every `.lua` file under `server/`, each brought in by esbuild's `text` loader.
 */
const luaScripts = {
  name: 'lua-scripts',
  setup(build) {
    build.onLoad({ filter: /[\\/]server[\\/]redis[\\/]lua\.ts$/ }, (args) => {
      if (args.path !== LUA_READER) return undefined;
      const server = path.join(root, 'server');
      const files = readdirSync(server, { recursive: true })
        .filter((file) => file.endsWith('.lua'))
        .map((file) => file.split(path.sep).join('/'))
        .sort();
      const imports = files.map((file, index) => `import lua${index} from ${JSON.stringify(path.join(server, file))};`);
      const texts = files.map((file, index) => `${JSON.stringify(file)}: lua${index}`);
      const contents = `${imports.join('\n')}
const texts: Record<string, string> = { ${texts.join(', ')} };
export function readLua(file: string): string {
  const text = texts[file];
  if (text === undefined) throw new Error(\`No Lua script \${file} was bundled.\`);
  return text;
}
`;
      return { contents, loader: 'ts', resolveDir: path.dirname(LUA_READER), watchFiles: files.map((file) => path.join(server, file)) };
    });
  },
};

/**
 * Builds every entry of `SERVER_OUTPUTS` (or only `entries`), into `outdir` (default dist/; the
 * tests build into a folder of their own run, laid out as the repository is). Each file is
 * written beside its final name, then renamed over it: a server starting meanwhile reads the old
 * file or the new one, never half of one. Returns the output paths.
 */
export async function buildServer({ entries = Object.keys(SERVER_OUTPUTS), outdir = path.join(root, 'dist'), log = true } = {}) {
  const started = performance.now();
  const external = installedPackages();
  const built = [];
  for (const entry of entries) {
    const outfile = path.join(outdir, path.basename(SERVER_OUTPUTS[entry]));
    const result = await esbuild.build({
      entryPoints: [path.join(root, entry)],
      outfile,
      write: false,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      sourcemap: true,
      // Their own subpaths (`pusher/…`) too.
      external: external.flatMap((name) => [name, `${name}/*`]),
      logLevel: 'warning',
      loader: { '.lua': 'text' },
      plugins: [luaScripts],
    });
    mkdirSync(path.dirname(outfile), { recursive: true });
    // The map first: the script names it, and must not be read before it is there.
    for (const file of [...result.outputFiles].sort((a) => (a.path.endsWith('.map') ? -1 : 1))) {
      const temporary = `${file.path}.${process.pid}.tmp`;
      writeFileSync(temporary, file.contents);
      renameSync(temporary, file.path);
    }
    built.push(outfile);
  }
  if (log) {
    const names = built.map((file) => path.relative(root, file)).join(', ');
    console.log(`server built: ${names} (${Math.round(performance.now() - started)} ms)`);
  }
  return built;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await buildServer();
}
