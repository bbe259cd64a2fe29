/**
 * altcha-lib names its types in its `exports` map only, which this project's "node" module
 * resolution does not read: these say where they are, for the type checker alone. At run time
 * Node, tsx, jest and esbuild resolve the package by its exports map, as usual.
 */
declare module 'altcha-lib' {
  export * from 'altcha-lib/dist/esm/v2/index';
}
declare module 'altcha-lib/algorithms/scrypt' {
  export * from 'altcha-lib/dist/esm/v2/algorithms/scrypt';
}
declare module 'altcha-lib/workers/shared' {
  export * from 'altcha-lib/dist/esm/v2/workers/shared';
}
declare module 'altcha-lib/types' {
  export * from 'altcha-lib/dist/esm/v2/types';
}
