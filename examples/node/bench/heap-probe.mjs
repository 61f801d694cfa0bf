// Loaded into the gateway by the soak with SOAK_HEAP=1 (`node --expose-gc --import …`): on SIGUSR2
// it runs a full GC and prints one `heap-probe {json}` line, so the soak can tell the memory the
// gateway still holds from what V8 and the allocator keep around it. Diagnostic only: the forced
// collections change the RSS the soak measures next.
process.on('SIGUSR2', () => {
  globalThis.gc();
  const { heapUsed, heapTotal, external } = process.memoryUsage();
  process.stdout.write(`heap-probe ${JSON.stringify({ heapUsed, heapTotal, external })}\n`);
});
