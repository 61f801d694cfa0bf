import { afterAll, beforeAll, expect, it } from 'vitest';
import { PostgresJobStore, PostgresRecordStore } from '../src/index.ts';
import { eventually } from './gateway-processes.ts';
import { startPostgres, type TestPostgres } from './postgres-server.ts';
import { Schemas } from './schemas.ts';

let postgres: TestPostgres;
let schemas: Schemas;
beforeAll(async () => {
  postgres = await startPostgres();
  schemas = new Schemas(postgres.url);
});
afterAll(async () => {
  postgres.resume();
  await schemas.close();
  await postgres.stop();
});

/** Open TCP sockets of this process (an open one keeps it from exiting by itself). */
const sockets = (): number =>
  process.getActiveResourcesInfo().filter((kind) => kind === 'TCPSocketWrap').length;

it('close() of both stores settles within commandTimeoutMs while PostgreSQL is paused, and leaves no socket open', async () => {
  const schema = await schemas.fresh('close');
  const before = sockets();
  const commandTimeoutMs = 1_000;
  const store = new PostgresJobStore({ connectionString: postgres.url, schema, commandTimeoutMs });
  const records = new PostgresRecordStore({
    connectionString: postgres.url,
    schema,
    commandTimeoutMs,
  });
  await records.create('idem:close', { state: 'done' }, 60_000);
  const now = new Date().toISOString();
  await store.create({
    jobId: 'job_close',
    invocationId: 'inv_close',
    status: 'running',
    createdAt: now,
    ownerId: 'alice',
    actionId: 'export',
    actionName: 'export',
    payload: {},
  });
  // A watched job opens the LISTEN connection.
  store.onCancel('job_close', () => {});
  await eventually(
    async () => {
      const rows = await schemas.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN %'",
      );
      return rows[0]?.n === 1 ? true : undefined;
    },
    5_000,
    'the LISTEN connection',
  );

  postgres.pause();
  try {
    const started = Date.now();
    const closed = await Promise.race([
      Promise.all([store.close(), records.close()]).then(() => 'closed'),
      new Promise((resolve) => setTimeout(resolve, commandTimeoutMs + 2_000, 'still closing')),
    ]);
    expect(closed).toBe('closed');
    expect(Date.now() - started).toBeLessThan(commandTimeoutMs + 1_000);
    // The test's own connection stays; the store's pool and LISTEN sockets are gone (a destroyed
    // socket's handle is released in a later turn).
    await eventually(
      async () => (sockets() <= before ? true : undefined),
      500,
      "the store's sockets to be released",
    );
  } finally {
    postgres.resume();
  }
}, 30_000);
