// Memory bound and per-op cost of MemoryJobStore, straight from the TypeScript source:
//
//   node --experimental-strip-types --expose-gc bench/memory-job-store.bench.ts
//
// Creates and finishes BENCH_JOBS (100 000) jobs with maxJobs BENCH_MAX_JOBS (10 000) and ~400-byte
// payloads, the way the gateway drives a job (create → onCancel → running → completed, every
// tenth one cancelled instead). Prints stored jobs at the end (must be ≤ the cap, else exit 1),
// heap before/after (after a forced GC) and throughput per operation.
import { MemoryJobStore } from '../src/store/memory-job-store.ts';

const jobs = Number(process.env.BENCH_JOBS ?? 100_000);
const maxJobs = Number(process.env.BENCH_MAX_JOBS ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) console.warn('warning: run with --expose-gc, heap figures include garbage');

const heapUsed = (): number => {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
};
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

// A realistic stored payload: validated action input plus callbacks, ~400 bytes of JSON.
const payloadFor = (i: number): Record<string, unknown> => ({
  input: { accountId: `acc_${i}`, period: '2025-Q1', format: 'csv', includeArchived: false },
  callbacks: {
    jobResultUrl: `https://assistant.example.com/api/callbacks/jobs/${i}/result`,
    authorization: 'cb_2f6a1c0e9d8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b',
  },
  meeting: { id: `m_${i % 97}`, roomName: 'Weekly revenue sync' },
  traceId: `trace-${i.toString(16).padStart(12, '0')}`,
  requestedBy: { locale: 'en-GB', email: 'alex.morgan@example.com' },
});
const payloadBytes = JSON.stringify(payloadFor(12345)).length;

const timings = { create: 0, onCancel: 0, start: 0, finish: 0, requestCancel: 0, get: 0 };
const counts = { create: 0, onCancel: 0, start: 0, finish: 0, requestCancel: 0, get: 0 };
const time = async <T>(op: keyof typeof timings, run: () => T | Promise<T>): Promise<T> => {
  const started = performance.now();
  const result = await run();
  timings[op] += performance.now() - started;
  counts[op] += 1;
  return result;
};

const heapBefore = heapUsed();
const store = new MemoryJobStore({ maxJobs });
let peak = 0;
const wall = performance.now();
for (let i = 0; i < jobs; i++) {
  const jobId = `job_${i.toString(36)}_${Math.random().toString(36).slice(2, 10)}`;
  // Built outside the timed call: the bench measures the store, not the fixture.
  const input = {
    jobId,
    ownerId: `user_${i % 50}`,
    invocationId: `inv_${i}`,
    actionId: 'export-report',
    actionName: 'Export report',
    status: 'queued',
    createdAt: new Date().toISOString(),
    payload: payloadFor(i),
  } as const;
  const { job } = await time('create', () => store.create(input));
  const unsubscribe = await time('onCancel', () => store.onCancel(jobId, () => {}));
  const started = await time('start', () =>
    store.update(jobId, job.version, { status: 'running' }),
  );
  if (!started.ok) throw new Error(`start failed: ${started.reason}`);
  if (i % 10 === 9) {
    await time('requestCancel', () => store.requestCancel(jobId));
  } else {
    await time('finish', () =>
      store.update(jobId, started.job.version, {
        status: 'completed',
        outputText: 'The report is ready.',
        data: { rows: i % 1000, url: `https://files.example.com/r/${jobId}.csv` },
      }),
    );
    unsubscribe();
  }
  await time('get', () => store.get(jobId));
  peak = Math.max(peak, store.size);
}
const wallMs = performance.now() - wall;
const heapAfter = heapUsed();

console.log(`MemoryJobStore bench — node ${process.version}, ${jobs} jobs, maxJobs ${maxJobs}`);
console.log(`payload ${payloadBytes} bytes of JSON per job`);
console.log(`stored jobs at end: ${store.size} (peak ${peak}, cap ${maxJobs})`);
console.log(`cancel listeners left: ${store.listenerCount}`);
console.log(
  `heap used: before ${mib(heapBefore)}, after ${mib(heapAfter)} ` +
    `(+${mib(heapAfter - heapBefore)}, ≈${Math.round((heapAfter - heapBefore) / store.size)} B per stored job)`,
);
console.log(
  `wall: ${wallMs.toFixed(0)} ms, ${Math.round(jobs / (wallMs / 1000))} jobs/s end to end`,
);
for (const op of Object.keys(timings) as (keyof typeof timings)[]) {
  if (counts[op] === 0) continue;
  const perOpUs = (timings[op] / counts[op]) * 1000;
  console.log(
    `  ${op.padEnd(13)} ${String(counts[op]).padStart(7)} ops  ${perOpUs.toFixed(2).padStart(6)} µs/op  ${Math.round(
      1e6 / perOpUs,
    )
      .toLocaleString('en')
      .padStart(10)} ops/s`,
  );
}
await store.close();
if (store.size > maxJobs || peak > maxJobs || store.listenerCount !== 0) {
  console.error('BENCH FAILED: the store exceeded its cap or leaked listeners');
  process.exitCode = 1;
}
