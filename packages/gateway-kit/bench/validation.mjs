// Per-invoke cost in-process, no sockets: plain valibot on the bench body versus the gateway's
// whole `fetch` path (Request in, Response out). Run as a child of run.mjs; prints JSON.
import * as v from 'valibot';
import { BODY, InvokeRequest, LookupInput, REQUEST_HEADERS } from './fixtures.mjs';
import { gateway } from './servers/gateway.mjs';

const budgetMs = Number(process.env.BENCH_MICRO_MS ?? 1000);
const parsedBody = JSON.parse(BODY);

function validate(value) {
  const request = v.safeParse(InvokeRequest, value);
  if (!request.success || !v.safeParse(LookupInput, request.output.action.input).success) {
    throw new Error('bench body failed validation');
  }
}

let sequence = 0;

async function viaFetch(body = BODY) {
  const response = await gateway.fetch(
    new Request('http://127.0.0.1/v1/invoke', {
      method: 'POST',
      headers: REQUEST_HEADERS,
      body,
    }),
  );
  if (response.status !== 200) throw new Error(`gateway.fetch answered ${response.status}`);
  await response.text();
}

/**
 * ns/op: runs `op` in batches for the time budget (after a warm-up of a fifth of it, so the
 * JIT has settled) and returns the median batch, which shrugs off GC pauses.
 */
async function measure(op) {
  const warmEnd = performance.now() + budgetMs / 5;
  while (performance.now() < warmEnd) for (let i = 0; i < 100; i++) await op();
  const samples = [];
  const end = performance.now() + budgetMs;
  while (performance.now() < end || samples.length < 5) {
    const batch = 200;
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await op();
    samples.push(Number(process.hrtime.bigint() - start) / batch);
  }
  samples.sort((x, y) => x - y);
  return samples[samples.length >> 1];
}

// `await` on a sync op costs a microtask; measured the same way for all three so it cancels out.
const results = {
  valibot: await measure(() => validate(parsedBody)),
  parseAndValibot: await measure(() => validate(JSON.parse(BODY))),
  gatewayFetch: await measure(() => viaFetch()),
  // A fresh idempotency key per call: claim, fingerprint (two SHA-256 digests) and store the answer.
  gatewayFetchIdempotent: await measure(() =>
    viaFetch(BODY.replace('{', `{"idempotencyKey":"bench-${++sequence}",`)),
  ),
};
process.stdout.write(JSON.stringify(results));
