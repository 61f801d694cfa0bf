import { fileURLToPath } from 'node:url';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { afterAll, expect, it } from 'vitest';
import { bundleWorker } from './workerd/bundle.ts';

// The kit's JobStore and RecordStore conformance suites, run inside workerd against the Durable
// Object stores (a SQLite-backed Durable Object, as deployed). Each vitest case is one suite case,
// run by index in the test worker (see workerd/conformance-worker.ts).
const script = await bundleWorker(
  fileURLToPath(new URL('./workerd/conformance-worker.ts', import.meta.url)),
);
const miniflare = new Miniflare(
  convertV4MiniflareOptions({
    name: 'conformance',
    modules: true,
    script,
    compatibilityDate: '2026-11-01',
    durableObjects: { CONFORMANCE: { className: 'ConformanceObject', useSQLite: true } },
  }),
);
afterAll(() => miniflare.dispose());

const tests = (await (await miniflare.dispatchFetch('http://conformance/tests')).json()) as {
  name: string;
}[];

it('registers both suites in workerd', () => {
  expect(tests.some((test) => test.name.startsWith('JobStore conformance'))).toBe(true);
  expect(tests.some((test) => test.name.startsWith('RecordStore conformance'))).toBe(true);
});

for (const [index, test] of tests.entries()) {
  it(test.name, async () => {
    const answer = await miniflare.dispatchFetch(`http://conformance/run?index=${index}`);
    const result = (await answer.json()) as { ok: boolean; error?: string };
    if (!result.ok) throw new Error(result.error);
  });
}
