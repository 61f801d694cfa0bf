import type { ConformanceTestApi } from '@svc/gateway-kit/testing';
import { DurableCallbackOutbox } from '../../src/durable-callback-outbox.ts';
import type { DurableStorage } from '../../src/durable-storage.ts';

/** JSON with object keys sorted, so that key order does not matter. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );

function equal(actual: unknown, expected: unknown, what: string): void {
  if (canonical(actual) !== canonical(expected))
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

const entry = (id: string, principal?: string) => ({
  webhookId: id,
  url: `https://hooks.example.com/${id}`,
  payload: `{"id":"${id}"}`,
  authorization: 'Bearer cb',
  ...(principal === undefined ? {} : { principal }),
});

/**
 * The DurableCallbackOutbox's guarantees (the CallbackOutbox contract of docs/job-stores.md): at
 * most one pending entry per webhook-id, claims with a lease, complete/reschedule only with the
 * claim, bounds in all and per principal, fair claims, expiry after its time to live.
 */
export function outboxCases(
  test: ConformanceTestApi,
  storage: DurableStorage,
  clock: { now: () => number; advance: (ms: number) => void },
  prefix: () => string,
): void {
  const outbox = (
    options: {
      maxEntries?: number;
      maxEntriesPerPrincipal?: number;
      maxBytesPerPrincipal?: number;
    } = {},
  ) =>
    new DurableCallbackOutbox(storage, {
      prefix: prefix(),
      now: clock.now,
      leaseMs: 1_000,
      ttlMs: 60_000,
      ...options,
    });
  test.describe('DurableCallbackOutbox (workerd)', () => {
    test.it(
      'enqueues claimed: not due until its lease lapses, then due with its attempts',
      async () => {
        const box = outbox();
        const first = await box.enqueue(entry('a'));
        if (typeof first !== 'object') throw new Error(`enqueue answered ${first}`);
        equal(await box.enqueue(entry('a')), 'exists', 'second enqueue of one webhook-id');
        equal(await box.claimDue(10), [], 'claimable while the claim holds');
        clock.advance(1_000);
        const [again] = await box.claimDue(10);
        equal(
          again && { ...again, claim: typeof again.claim },
          { ...entry('a'), attempts: 0, claim: 'string' },
          'the entry after the lease lapsed',
        );
      },
    );

    test.it('complete and reschedule act only with the current claim', async () => {
      const box = outbox();
      const stored = await box.enqueue(entry('b'));
      if (typeof stored !== 'object') throw new Error(`enqueue answered ${stored}`);
      await box.complete('b', 'not-the-claim');
      await box.reschedule('b', 'not-the-claim', 5, 0);
      equal(box.size, 1, 'entries after a stale complete');
      await box.reschedule('b', stored.claim, 1, 500);
      equal(await box.claimDue(10), [], 'claimable before the delay');
      clock.advance(500);
      const [due] = await box.claimDue(10);
      equal(due?.attempts, 1, 'attempts after the reschedule');
      await box.complete('b', due?.claim ?? '');
      equal(box.size, 0, 'entries after complete');
      equal(box.nextDueAt(), undefined, 'next due time of an empty outbox');
    });

    test.it('is bounded in all and per principal: full for the one at its share only', async () => {
      const box = outbox({ maxEntries: 5, maxEntriesPerPrincipal: 2 });
      equal(typeof (await box.enqueue(entry('p1', 'alice'))), 'object', 'alice 1');
      equal(typeof (await box.enqueue(entry('p2', 'alice'))), 'object', 'alice 2');
      equal(await box.enqueue(entry('p3', 'alice')), 'full', 'alice 3');
      equal(typeof (await box.enqueue(entry('p4', 'bob'))), 'object', 'bob 1');
      equal(typeof (await box.enqueue(entry('p5'))), 'object', 'anonymous 1');
      equal(typeof (await box.enqueue(entry('p6', 'carol'))), 'object', 'carol 1');
      equal(await box.enqueue(entry('p7', 'dave')), 'full', 'dave, outbox full');
    });

    test.it('bounds the bytes one principal has waiting', async () => {
      const box = outbox({ maxBytesPerPrincipal: 200 });
      const big = { ...entry('big1', 'alice'), payload: 'x'.repeat(120) };
      equal(typeof (await box.enqueue(big)), 'object', 'first large entry');
      equal(await box.enqueue({ ...big, webhookId: 'big2' }), 'full', 'second large entry');
      equal(
        typeof (await box.enqueue({ ...entry('big3', 'bob'), payload: big.payload })),
        'object',
        'bob',
      );
    });

    test.it('claims fairly: one due entry per principal in turn', async () => {
      const box = outbox();
      for (const id of ['a1', 'a2', 'a3']) await box.enqueue(entry(id, 'alice'));
      await box.enqueue(entry('b1', 'bob'));
      clock.advance(1_000);
      const claimed = await box.claimDue(2);
      equal(claimed.map((e) => e.webhookId).sort(), ['a1', 'b1'], 'first two claims');
    });

    test.it(
      'hands out an entry past its time to live once, marked expired, and forgets it',
      async () => {
        const box = outbox();
        await box.enqueue(entry('old'));
        clock.advance(60_000);
        const [expired] = await box.claimDue(10);
        equal((expired as { expired?: boolean } | undefined)?.expired, true, 'expired flag');
        equal(box.size, 0, 'entries after the expired claim');
        equal(await box.claimDue(10), [], 'claims after');
      },
    );
  });
}
