import { addToSets, removeFromSets } from '@svc/gateway-kit/store';
import { recordStoreConformance } from '@svc/gateway-kit/testing';
import * as fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresRecordStore } from '../src/index.ts';
import { lockClass } from '../src/postgres-connection.ts';
import { countedPool } from './counted-pool.ts';
import { startPostgres, type TestPostgres } from './postgres-server.ts';
import { Schemas } from './schemas.ts';

let postgres: TestPostgres;
let schemas: Schemas;
const closers: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  postgres = await startPostgres();
  schemas = new Schemas(postgres.url);
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await schemas.close();
  await postgres.stop();
});

// The suite includes the time-ordered set cases (quotas, approvals index).
recordStoreConformance({
  name: 'PostgresRecordStore',
  createStore: async () =>
    new PostgresRecordStore({
      connectionString: postgres.url,
      schema: await schemas.fresh(),
      poolSize: 4,
      // The deadline is the fault tests' subject; here a loaded machine must not fail a case.
      commandTimeoutMs: 10_000,
    }),
  test: { describe, it },
  fc,
  numRuns: 40,
  timeoutMs: 60_000,
  // Real sleeps: records expire on the server's clock (microsecond precision).
  ttl: { ttlMs: 1_000 },
});

/** A store on a pool whose statements are counted. */
async function countedStore() {
  const schema = await schemas.fresh();
  const counted = countedPool(postgres.url);
  const store = new PostgresRecordStore({
    pool: counted,
    schema,
    sweepIntervalMs: 0,
    commandTimeoutMs: 10_000,
  });
  closers.push(
    () => counted.end(),
    () => store.close(),
  );
  return { store, counted, schema };
}

const HOUR = 3_600_000;

describe('PostgresRecordStore set batches', () => {
  it('a job’s quota claims and releases are one statement each, refused or not', async () => {
    const { store, counted } = await countedStore();
    const claim = (job: string) => [
      { set: 'jobs:p1', member: job, ttlMs: HOUR, maxSize: 2 },
      { set: 'bytes:p1', member: `${job}#0`, ttlMs: HOUR, maxSize: 3 },
      { set: 'bytes:p1', member: `${job}#1`, ttlMs: HOUR, maxSize: 3 },
    ];
    expect(await addToSets(store, claim('job-1'))).toBe(-1);
    expect(counted.statements).toBe(1);
    // Two units of three are held: the second unit of job-2 does not fit.
    expect(await addToSets(store, claim('job-2'))).toBe(2);
    expect(counted.statements).toBe(2);
    expect((await store.rangeOfSet('jobs:p1', 10)).map((entry) => entry.member)).toEqual(['job-1']);
    counted.statements = 0;
    await removeFromSets(store, claim('job-1'));
    expect(counted.statements).toBe(1);
    expect(await store.rangeOfSet('jobs:p1', 10)).toEqual([]);
    expect(await store.rangeOfSet('bytes:p1', 10)).toEqual([]);
  });

  it('adds racing with the previous version’s add_to_set (a rolling upgrade) never exceed a cap', async () => {
    const { store, schema } = await countedStore();
    const max = 4;
    const old = (member: string) =>
      schemas.query<{ added: boolean }>(
        `SELECT "${schema}".add_to_set($1, $2, $3, $4, $5) AS added`,
        [lockClass('sets', schema), 'race', member, HOUR, max],
      );
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? old(`old-${i}`).then(([row]) => row!.added)
          : store.addToSet('race', `new-${i}`, HOUR, max),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(max);
    expect(await store.rangeOfSet('race', 100)).toHaveLength(max);
  });

  it('a claim does not wait for an expired member another transaction holds, nor count it', async () => {
    const { store, schema } = await countedStore();
    // An expired member, locked by an open transaction (as the sweeper or a release holds one
    // while deleting it): a claim that waited for it could wait in a cycle with that transaction.
    const holder = new pg.Client({ connectionString: postgres.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(
        `INSERT INTO "${schema}".set_members (set_name, member, expires_at)
         VALUES ('held', 'gone', floor(extract(epoch FROM clock_timestamp()) * 1000) - 60000)`,
      );
      await holder.query('COMMIT');
      await holder.query('BEGIN');
      await holder.query(
        `SELECT 1 FROM "${schema}".set_members WHERE set_name = 'held' FOR UPDATE`,
      );
      // The expired member does not take the one place of the set; the claim answers while the
      // lock is held (before, it waited for the lock until its 10 s deadline and failed).
      expect(
        await store.addToSets([{ set: 'held', member: 'job-1', ttlMs: HOUR, maxSize: 1 }]),
      ).toBe(-1);
      expect(
        await store.addToSets([{ set: 'held', member: 'job-2', ttlMs: HOUR, maxSize: 1 }]),
      ).toBe(0);
      expect((await store.rangeOfSet('held', 10)).map((entry) => entry.member)).toEqual(['job-1']);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
    }
  });
});
