#!/usr/bin/env node
// The repository's command: `npx waiting-room verify-draw URL`, `npx waiting-room rehearse …` (see bin/main.ts). It runs the
// TypeScript sources through tsx, with the repository's tsconfig.json (which names the contract
// package by its sources), from whatever folder it is called in.
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.env.TSX_TSCONFIG_PATH ??= path.join(root, 'tsconfig.json');
const { tsImport } = await import('tsx/esm/api');
const { main } = await tsImport('./main.ts', import.meta.url);
process.exitCode = await main(process.argv.slice(2));
