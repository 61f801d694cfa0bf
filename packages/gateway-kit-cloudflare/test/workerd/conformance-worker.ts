// A test worker run by Miniflare (workerd): the kit's store conformance suites against the
// Durable Object stores, inside a real Durable Object. The Node side (conformance.test.ts) asks for
// the list of tests, then runs each by its index.
import {
  callbackOutboxConformance,
  jobStoreConformance,
  recordStoreConformance,
} from '@svc/gateway-kit/testing';
import * as fc from 'fast-check';
import { DurableCallbackOutbox } from '../../src/durable-callback-outbox.ts';
import { DurableJobStore } from '../../src/durable-job-store.ts';
import { DurableRecordStore } from '../../src/durable-record-store.ts';
import type { DurableStorage } from '../../src/durable-storage.ts';
import { outboxCases } from './outbox-cases.ts';
import { recordBoundsCases } from './record-bounds-cases.ts';
import { recoveryCases } from './recovery-cases.ts';
import { collectTests, type RegisteredTest, runTest } from './test-runner.ts';

interface State {
  readonly storage: DurableStorage;
}

export class ConformanceObject {
  readonly #tests: RegisteredTest[];

  constructor(state: State) {
    const storage = state.storage;
    // A fake clock, moved only by the retention and TTL cases (they count to the millisecond).
    let clock = Date.now();
    const now = (): number => clock;
    const advanceTime = (ms: number): void => {
      clock += ms;
    };
    let tables = 0;
    // Each store gets its own tables in this object's SQLite database: an empty store per test.
    const prefix = (): string => `t${++tables}_`;
    this.#tests = collectTests((test) => {
      jobStoreConformance({
        name: 'DurableJobStore (workerd)',
        createStore: () => new DurableJobStore(storage, { prefix: prefix(), now }),
        test,
        fc,
        numRuns: 50,
        retention: {
          retentionMs: 60_000,
          advanceTime,
          createStore: () =>
            new DurableJobStore(storage, { prefix: prefix(), now, retentionMs: 60_000 }),
        },
        bounds: {
          maxJobs: 5,
          createStore: () => new DurableJobStore(storage, { prefix: prefix(), now, maxJobs: 5 }),
        },
      });
      recordStoreConformance({
        name: 'DurableRecordStore (workerd)',
        createStore: () => new DurableRecordStore(storage, { prefix: prefix(), now }),
        test,
        fc,
        numRuns: 50,
        ttl: { ttlMs: 60_000, advanceTime },
      });
      // Real time (leases and retention of a few hundred ms): the store's default clock.
      callbackOutboxConformance({
        name: 'DurableCallbackOutbox (workerd)',
        createOutbox: ({ leaseMs, maxEntriesPerPrincipal, retentionMs }) =>
          new DurableCallbackOutbox(storage, {
            prefix: prefix(),
            leaseMs,
            maxEntriesPerPrincipal,
            ttlMs: retentionMs,
          }),
        test,
      });
      outboxCases(test, storage, { now, advance: advanceTime }, prefix);
      recordBoundsCases(test, storage, { now, advance: advanceTime }, prefix);
      recoveryCases(test, storage, prefix);
    });
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/tests') {
      return Response.json(
        this.#tests.map((test) => ({ name: test.name, timeoutMs: test.timeoutMs })),
      );
    }
    const test = this.#tests[Number(url.searchParams.get('index'))];
    if (!test) return Response.json({ error: 'no such test' }, { status: 404 });
    return Response.json(await runTest(test));
  }
}

interface Env {
  readonly CONFORMANCE: {
    idFromName(name: string): unknown;
    get(id: unknown): { fetch(request: Request): Promise<Response> };
  };
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    return env.CONFORMANCE.get(env.CONFORMANCE.idFromName('conformance')).fetch(request);
  },
};
