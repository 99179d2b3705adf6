import v8 from 'node:v8';

/**
 * Preloaded (`--import`) into a bench child to count what it allocates: on SIGUSR2 it writes
 * `heap-probe <heapUsed> <newSpaceUsed>` to stderr. The child runs with a young generation
 * large enough that no scavenge happens between two probes, so the growth of the heap
 * between them is what was allocated (a shrinking young space says a collection spoiled it).
 */
process.on('SIGUSR2', () => {
  const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  process.stderr.write(`heap-probe ${process.memoryUsage().heapUsed} ${young?.space_used_size ?? -1}\n`);
});
