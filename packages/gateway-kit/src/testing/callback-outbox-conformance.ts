import type { CallbackOutbox, OutboxEntry } from '../runtime/callback-outbox.ts';
import { assert, assertEqual, type ConformanceTestApi, sleep } from './conformance-kit.ts';

/**
 * The settings a test asks of {@link CallbackOutboxConformanceOptions.createOutbox}; map each to
 * your store's own option.
 */
export interface CallbackOutboxTestSettings {
  /** The claim duration (`CallbackOutbox.leaseMs`). */
  readonly leaseMs: number;
  /** Entries one principal may have pending. */
  readonly maxEntriesPerPrincipal: number;
  /** How long an entry is kept at most. */
  readonly retentionMs: number;
}

/**
 * What {@link callbackOutboxConformance} needs to know about the outbox under test.
 *
 * @example
 * const options: CallbackOutboxConformanceOptions = {
 *   name: 'RedisCallbackOutbox',
 *   createOutbox: ({ leaseMs, maxEntriesPerPrincipal, retentionMs }) =>
 *     new RedisJobStore({ prefix: `t:${crypto.randomUUID()}:`, leaseMs, retentionMs,
 *       maxPendingCallbacksPerPrincipal: maxEntriesPerPrincipal }).callbackOutbox,
 *   test: { describe, it },
 * };
 */
export interface CallbackOutboxConformanceOptions {
  /** Names the top-level `describe` block. */
  readonly name: string;
  /** Returns a new, empty outbox with these settings. Called once per test. */
  readonly createOutbox: (
    settings: CallbackOutboxTestSettings,
  ) => CallbackOutbox | Promise<CallbackOutbox>;
  /** Disposes of an outbox after its test (e.g. closes its store). Default: nothing. */
  readonly cleanup?: (outbox: CallbackOutbox) => void | Promise<void>;
  /** `describe` and `it` of your test runner. */
  readonly test: ConformanceTestApi;
  /**
   * Whether the outbox hands expired entries back once with `expired: true` (else it may drop
   * them silently; the case then only checks they are never claimed). Default `true`.
   */
  readonly reportsExpired?: boolean;
  /** Per-test timeout handed to `it`, for slow backends. Default: the runner's own. */
  readonly timeoutMs?: number;
}

const LONG = { leaseMs: 60_000, maxEntriesPerPrincipal: 1_000, retentionMs: 60 * 60 * 1000 };

/**
 * Registers the callback outbox conformance suite: the guarantees of `CallbackOutbox` that durable,
 * per-principal callback delivery relies on. Call it at the top level of a test file; it uses real
 * timers (leases and retention of a few hundred ms) and never imports a test runner.
 *
 * Covered: store-if-absent (`exists`), a new entry is claimed by its enqueuer for `leaseMs`, a
 * lapsed claim is due again, `reschedule` keeps every field byte for byte and sets `attempts`,
 * `complete` and `reschedule` do nothing under a stale claim, each principal's share (`full` for
 * that principal only), fair claims across principals, and retention (`expired`).
 *
 * @example
 * import { describe, it } from 'vitest';
 * import { callbackOutboxConformance } from '@svc/gateway-kit/testing';
 *
 * callbackOutboxConformance({
 *   name: 'MyOutbox',
 *   createOutbox: (settings) => new MyStore(settings).callbackOutbox,
 *   test: { describe, it },
 * });
 */
export function callbackOutboxConformance(options: CallbackOutboxConformanceOptions): void {
  const { describe, it } = options.test;
  const timeout = options.timeoutMs;
  const test = (
    name: string,
    settings: Partial<CallbackOutboxTestSettings>,
    body: (outbox: CallbackOutbox) => Promise<void>,
  ): void => {
    const run = async (): Promise<void> => {
      const outbox = await options.createOutbox({ ...LONG, ...settings });
      try {
        await body(outbox);
      } finally {
        await options.cleanup?.(outbox);
      }
    };
    if (timeout === undefined) it(name, run);
    else it(name, run, timeout);
  };
  const entry = (
    id: string,
    principal?: string,
  ): Omit<OutboxEntry, 'attempts'> & { principal?: string } => ({
    webhookId: id,
    url: 'https://hooks.example.com/jobs?x=1',
    payload: '{"job":{"jobId":"j","status":"completed","note":"é ✓"}}',
    authorization: 'Bearer receiver-token',
    ...(principal === undefined ? {} : { principal }),
  });
  const stored = async (outbox: CallbackOutbox, value: Omit<OutboxEntry, 'attempts'>) => {
    const result = await outbox.enqueue(value);
    assert(typeof result === 'object', `enqueue(${value.webhookId}) stored it (got ${result})`);
    return result.claim;
  };
  /** Enqueues and releases at once: the entry is due now. */
  const due = async (outbox: CallbackOutbox, value: Omit<OutboxEntry, 'attempts'>) => {
    await outbox.reschedule(value.webhookId, await stored(outbox, value), 0, 0);
  };

  describe(`${options.name} (callback outbox conformance)`, () => {
    test('stores an entry once: a second enqueue of the same webhookId answers exists', {}, async (outbox) => {
      await stored(outbox, entry('w1'));
      assertEqual(await outbox.enqueue(entry('w1')), 'exists', 'second enqueue');
    });

    test('a new entry is claimed by its enqueuer: not due before leaseMs', {}, async (outbox) => {
      await stored(outbox, entry('w1'));
      assertEqual(await outbox.claimDue(10), [], 'claimDue while the claim holds');
    });

    test('a lapsed claim is due again', { leaseMs: 200 }, async (outbox) => {
      const enqueued = Date.now();
      await stored(outbox, entry('w1'));
      // Claimed by whoever asks first once the lease ran out on the store's clock: asked until
      // then (a claim of nothing changes nothing), for 5 s past the lease at most.
      let claimed = await outbox.claimDue(10);
      while (claimed.length === 0 && Date.now() - enqueued < 200 + 5_000) {
        await sleep(10);
        claimed = await outbox.claimDue(10);
      }
      assertEqual(
        claimed.map((e) => e.webhookId),
        ['w1'],
        'claimDue after the lease',
      );
      // Not before it (a 50 ms allowance for a store whose clock is not this process's).
      assert(Date.now() - enqueued >= 150, 'the claim lapsed before leaseMs');
      assertEqual(await outbox.claimDue(10), [], 'claimDue right after (claimed again)');
    });

    test('reschedule releases the claim, sets attempts and keeps every field byte for byte', {}, async (outbox) => {
      const sent = entry('w1', 'acme');
      const claim = await stored(outbox, sent);
      await outbox.reschedule('w1', claim, 3, 0);
      const [back, ...rest] = await outbox.claimDue(10);
      assert(back !== undefined && rest.length === 0, 'one entry claimed');
      assertEqual(
        {
          webhookId: back.webhookId,
          url: back.url,
          payload: back.payload,
          authorization: back.authorization,
          principal: back.principal,
          attempts: back.attempts,
        },
        { ...sent, attempts: 3 },
        'the claimed entry',
      );
      assert(typeof back.claim === 'string' && back.claim !== claim, 'a new claim');
      assert(back.expired !== true, 'not expired');
    });

    test('complete and reschedule do nothing under a stale claim', {}, async (outbox) => {
      const first = await stored(outbox, entry('w1'));
      await outbox.reschedule('w1', first, 1, 0);
      const [taken] = await outbox.claimDue(10);
      assert(taken !== undefined, 'claimed');
      await outbox.complete('w1', first);
      await outbox.reschedule('w1', first, 9, 0);
      assertEqual(await outbox.claimDue(10), [], 'still held by the new claim');
      await outbox.complete('w1', taken.claim);
      assertEqual((await outbox.enqueue(entry('w1'))) !== 'exists', true, 'gone after complete');
    });

    test("each principal has its own share: one principal's full share does not refuse another", {
      maxEntriesPerPrincipal: 3,
    }, async (outbox) => {
      for (let n = 0; n < 3; n++) await stored(outbox, entry(`a${n}`, 'a'));
      assertEqual(await outbox.enqueue(entry('a3', 'a')), 'full', "a's fourth entry");
      await stored(outbox, entry('b0', 'b'));
      await stored(outbox, entry('b1', 'b'));
    });

    test('claims fairly: a backlog of one principal does not fill a batch while another has due entries', {}, async (outbox) => {
      for (let n = 0; n < 20; n++) await due(outbox, entry(`a${n}`, 'a'));
      for (let n = 0; n < 2; n++) await due(outbox, entry(`b${n}`, 'b'));
      const claimed = await outbox.claimDue(4);
      assertEqual(claimed.length, 4, 'entries claimed');
      assertEqual(
        claimed.filter((e) => e.principal === 'b').length,
        2,
        "b's entries among the first 4 claimed",
      );
    });

    test('retention: an entry past it is never claimed for delivery', {
      retentionMs: 200,
    }, async (outbox) => {
      await due(outbox, entry('w1', 'a'));
      // Retention passing on the store's clock is what is tested: a real wait, 150 ms past it. (A
      // claim before then would claim the due entry, so the suite cannot ask until it expires.)
      await sleep(350);
      const claimed = await outbox.claimDue(10);
      if (options.reportsExpired ?? true) {
        assertEqual(
          claimed.map((e) => [e.webhookId, e.expired === true]),
          [['w1', true]],
          'the expired entry, once',
        );
      } else {
        assert(
          claimed.every((e) => e.expired === true),
          'no expired entry claimed for delivery',
        );
      }
      assertEqual(await outbox.claimDue(10), [], 'claimDue afterwards');
    });
  });
}
