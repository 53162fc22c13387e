// Test-only preload (node --import): the group's worker whose WORKER_INDEX is SKEW_WORKER gets a clock SKEW_MS off,
// as on a machine whose clock is wrong. Plain JS: it loads before tsx.
if (process.env.WORKER_INDEX !== undefined && process.env.WORKER_INDEX === process.env.SKEW_WORKER) {
  const off = Number(process.env.SKEW_MS);
  const real = Date.now;
  Date.now = () => real() + off;
}
