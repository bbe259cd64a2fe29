/**
 * The import rules `npm run lint` checks (dependency-cruiser): no cycles anywhere, and the
 * server's layers as docs/architecture.md draws them — the domain at the bottom, the stores and
 * realtime beside the HTTP edge, the process on top composing them all.
 */
const STORE_CONTRACT = '^server/store/(types|errors|event-store)\\.ts$';
const DRIVERS = '^node_modules/(fastify|@fastify/.+|ioredis|pusher|ws|prom-client)/';

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'An import cycle: a module reaches itself.', from: {}, to: { circular: true } },
    {
      name: 'connector-stands-alone',
      severity: 'error',
      comment: "The connector runs in the site's own process (Node, Edge, Workers): it imports only itself and jose.",
      // Its examples are sites: they import their framework too.
      from: { path: '^connector/', pathNot: '^connector/examples/' },
      to: { pathNot: ['^connector/', '^node_modules/jose/'] },
    },
    {
      name: 'door-core-is-pure',
      severity: 'error',
      comment: "The doors' one decision (connector/core) knows no framework and no adapter: it imports itself, and the pass's type.",
      from: { path: '^connector/core/' },
      to: { pathNot: ['^connector/core/', '^connector/pass\\.ts$'] },
    },
    {
      name: 'server-not-demo',
      severity: 'error',
      comment: 'The demo shop is one origin among others: the server never imports it.',
      from: { path: '^server/' },
      to: { path: '^demo/' },
    },
    {
      name: 'demo-not-server',
      severity: 'error',
      comment: 'The demo shop knows nothing of the waiting room.',
      from: { path: '^demo/' },
      to: { path: '^server/' },
    },
    {
      name: 'config-is-a-leaf',
      severity: 'error',
      comment: "The configuration's declaration (server/config) is read by every layer, so it imports nothing of the server.",
      from: { path: '^server/config/' },
      to: { path: '^server/', pathNot: '^server/config/' },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: "The domain knows no HTTP, realtime, Redis or process: it imports itself and the stores' contract.",
      from: { path: '^server/domain/' },
      to: { path: ['^server/(http|realtime|process|redis)/', '^server/store/'], pathNot: STORE_CONTRACT },
    },
    {
      name: 'domain-no-drivers',
      severity: 'error',
      comment: 'No web framework, Redis client or Pusher SDK in the domain.',
      from: { path: '^server/domain/' },
      to: { path: DRIVERS },
    },
    {
      name: 'stores-below-the-edges',
      severity: 'error',
      comment: 'A store serves the domain; it knows no HTTP, realtime or process.',
      from: { path: '^server/store/' },
      to: { path: '^server/(http|realtime|process)/' },
    },
    {
      name: 'edges-not-process',
      severity: 'error',
      comment: 'The HTTP edge and realtime are handed their configuration; only its types come from the process layer.',
      from: { path: '^server/(http|realtime)/' },
      to: { path: '^server/process/', pathNot: '^server/process/config\\.ts$' },
    },
    {
      name: 'edges-not-stores',
      severity: 'error',
      comment: 'The edges reach the line through the domain, not a store of their own choosing.',
      from: { path: '^server/(http|realtime)/' },
      to: { path: '^server/store/', pathNot: STORE_CONTRACT },
    },
    {
      name: 'redis-is-a-driver',
      severity: 'error',
      comment: 'The connection to Redis serves the store and the fan-out; it knows nothing else of the server.',
      from: { path: '^server/redis/' },
      to: { path: '^server/', pathNot: '^server/redis/' },
    },
    {
      name: 'realtime-not-http',
      severity: 'error',
      comment: 'Realtime does not depend on the HTTP edge.',
      from: { path: '^server/realtime/' },
      to: { path: '^server/http/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Next.js's build output, beside the example.
    exclude: { path: '/\\.next/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
