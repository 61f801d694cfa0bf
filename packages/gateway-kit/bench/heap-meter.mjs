// Preloaded into each server by run.mjs when BENCH_HEAP=1 (`node --import`): between a
// `heap-meter-start` and a `heap-meter-stop` message from the runner (which brings the count of
// answers the load generator took), the bytes the JavaScript heap grew by between garbage
// collections (v8.GCProfiler). Heap bytes per request depend on the code,
// not on how busy the machine is: a steadier development figure than CPU time on a shared machine.
// Also the bytes per request that young-generation collections moved to the old generation:
// objects still reachable at two scavenges. A server whose requests end has next to none; a
// figure in the hundreds means finished requests are kept alive until a full GC (the gateway had
// this, through a closure stored on each request's adapter object), and every scavenge copies them.
import { GCProfiler } from 'node:v8';

let profiler;
process.on('message', (message) => {
  if (message === 'heap-meter-start') {
    profiler = new GCProfiler();
    profiler.start();
  } else if (message?.heapMeterStop !== undefined && profiler) {
    const { statistics } = profiler.stop();
    profiler = undefined;
    let grown = 0;
    let promoted = 0;
    let last;
    for (const gc of statistics) {
      const before = gc.beforeGC.heapStatistics.usedHeapSize;
      if (last !== undefined) grown += Math.max(0, before - last);
      last = gc.afterGC.heapStatistics.usedHeapSize;
      if (gc.gcType === 'Scavenge')
        promoted += Math.max(0, oldBytes(gc.afterGC) - oldBytes(gc.beforeGC));
    }
    // Bytes between the first and the last collection, over the requests of that stretch
    // (estimated as an even share of the run's requests).
    // Counted by the load generator: `serve()`'s own server publishes no `http.server.*` events.
    const served = message.heapMeterStop;
    const share = statistics.length > 1 ? (statistics.length - 1) / statistics.length : 0;
    process.send?.({
      heapBytesPerRequest: share > 0 ? grown / (served * share) : Number.NaN,
      promotedBytesPerRequest: served > 0 ? promoted / served : Number.NaN,
    });
  }
});

/** Bytes in the old generation (regular and large objects). */
function oldBytes(snapshot) {
  let bytes = 0;
  for (const space of snapshot.heapSpaceStatistics) {
    if (space.spaceName === 'old_space' || space.spaceName === 'large_object_space')
      bytes += space.spaceUsedSize;
  }
  return bytes;
}
