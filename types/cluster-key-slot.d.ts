/** cluster-key-slot ships no types: the one function this project calls, the slot Redis Cluster gives a key. */
declare module 'cluster-key-slot' {
  function calculateSlot(key: string | Buffer): number;
  export = calculateSlot;
}
