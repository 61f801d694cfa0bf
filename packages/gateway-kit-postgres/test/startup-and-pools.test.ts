import { createServer, type Socket } from 'node:net';
import { createGateway, defineAction } from '@svc/gateway-kit';
import { invokeBody } from '@svc/gateway-kit/testing';
import pg from 'pg';
import * as v from 'valibot';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  isStoreUnavailableError,
  migrate,
  PostgresConnectionRestored,
  PostgresJobStore,
  PostgresRecordStore,
} from '../src/index.ts';
import { eventually } from './gateway-processes.ts';
import { freePort, startPostgres, type TestPostgres } from './postgres-server.ts';
import { Schemas } from './schemas.ts';

let postgres: TestPostgres;
let schemas: Schemas;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  postgres = await startPostgres();
  schemas = new Schemas(postgres.url);
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  vi.restoreAllMocks();
});
afterAll(async () => {
  await schemas.close();
  await postgres.stop();
});

const quiet = (): void => {};
const job = (jobId: string) => ({
  jobId,
  ownerId: 'p',
  invocationId: 'inv',
  actionId: 'a',
  actionName: 'A',
  createdAt: new Date().toISOString(),
  status: 'running' as const,
});

describe('start-up', () => {
  it('ready() rejects fast with a StoreUnavailableError naming the URL without its password', async () => {
    const port = await freePort(); // nothing listens there
    const connectionString = `postgres://gateway:s3cret-pass@127.0.0.1:${port}/app`;
    for (const store of [
      new PostgresJobStore({ connectionString, connectTimeoutMs: 300, onError: quiet }),
      new PostgresRecordStore({ connectionString, connectTimeoutMs: 300, onError: quiet }),
    ]) {
      closers.push(() => store.close());
      const started = Date.now();
      const error = await store.ready().then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(isStoreUnavailableError(error)).toBe(true);
      expect((error as Error).message).toBe(
        `Cannot reach Postgres at postgres://gateway:***@127.0.0.1:${port}/app.`,
      );
      expect(JSON.stringify(error)).not.toContain('s3cret');
    }
  });

  it('a password given as a query parameter (node-postgres reads it) is hidden the same way', async () => {
    const port = await freePort(); // nothing listens there
    const connectionString = `postgres://gateway@127.0.0.1:${port}/app?password=s3cret-pass`;
    const reported: unknown[] = [];
    const store = new PostgresRecordStore({
      connectionString,
      connectTimeoutMs: 300,
      onError: (event) => reported.push(event),
    });
    closers.push(() => store.close());
    const error = await store.ready().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(isStoreUnavailableError(error)).toBe(true);
    expect((error as Error).message).toBe(
      `Cannot reach Postgres at postgres://gateway@127.0.0.1:${port}/app?password=***.`,
    );
    // What onError receives (the outage) names the database the same way.
    expect(reported.length).toBeGreaterThan(0);
    for (const event of reported) expect(String(event)).not.toContain('s3cret');
  });

  it('a login the server refuses (an unknown role, a wrong password) is an outage: 503 unavailable, reported once with the reason, never the password', async () => {
    const schema = await schemas.fresh('login');
    // Trust authentication on the test server: an unknown role is refused at login (SQLSTATE
    // 28000), as a wrong password is (28P01) on a server that asks for one.
    const connectionString = `postgres://nobody:s3cret-pass@127.0.0.1:${postgres.port}/postgres`;
    const reported: unknown[] = [];
    const onError = (event: unknown): void => void reported.push(event);
    const jobStore = new PostgresJobStore({
      connectionString,
      schema,
      sweepIntervalMs: 0,
      onError,
    });
    const recordStore = new PostgresRecordStore({ connectionString, schema, onError });
    const gateway = createGateway({
      gateway: { id: 'acme', name: 'Acme', url: 'https://gateway.acme.example' },
      actions: [
        defineAction({
          id: 'export',
          executionMode: 'async',
          input: v.strictObject({}),
          run: async () => ({ outputText: 'done' }),
        }),
      ],
      auth: { tokens: ['login-token'] },
      jobStore,
      recordStore,
      callbacks: false,
    });
    closers.push(async () => {
      await gateway.close();
      await Promise.all([jobStore.close(), recordStore.close()]);
    });
    for (const store of [jobStore, recordStore]) {
      const error = await store.ready().then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(isStoreUnavailableError(error)).toBe(true);
      expect((error as Error).message).toBe(
        `Postgres at postgres://nobody:***@127.0.0.1:${postgres.port}/postgres refused the login: role "nobody" does not exist.`,
      );
    }
    for (let i = 0; i < 3; i++) {
      const response = await gateway.fetch(
        new Request('https://gateway.acme.example/v1/invoke', {
          method: 'POST',
          headers: { authorization: 'Bearer login-token', 'content-type': 'application/json' },
          body: JSON.stringify(invokeBody('export')),
        }),
      );
      expect(response.status).toBe(503);
      expect((await response.json()).error).toMatchObject({ code: 'unavailable', retryable: true });
    }
    // One "lost" line per store, naming the reason; nothing else, and no password anywhere.
    expect(reported).toHaveLength(2);
    for (const event of reported) {
      expect(isStoreUnavailableError(event)).toBe(true);
      expect(String(event)).toContain('refused the login: role "nobody" does not exist');
      expect(String(event)).not.toContain('s3cret');
    }
  });

  it('a pool that throws at once rejects ready() and leaves no deadline behind to crash the process later', async () => {
    // pg's own pool threw at once for a connection string whose port is no number; the
    // constructor now refuses such a string (test/options.test.ts), a pool may still throw.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const pool = {
        query: (): never => {
          throw new TypeError('Invalid URL');
        },
        end: async () => {},
      };
      const store = new PostgresJobStore({ pool, commandTimeoutMs: 500, onError: quiet });
      const error = await store.ready().then(
        () => undefined,
        (reason: unknown) => reason,
      );
      await store.close();
      expect(isStoreUnavailableError(error)).toBe(true);
      expect((error as Error).cause).toEqual(new TypeError('Invalid URL'));
      // Past the command deadline: it was cleared, so nothing rejects unobserved.
      await vi.advanceTimersByTimeAsync(1_000);
      expect(vi.getTimerCount()).toBe(0);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      vi.useRealTimers();
    }
  });

  it('migrate() rejects with StoreUnavailableError, password hidden, when nothing answers or the server never speaks', async () => {
    const closedPort = await freePort();
    const refused = await migrate({
      connectionString: `postgres://app:s3cret@127.0.0.1:${closedPort}/app`,
    }).catch((error: unknown) => error);
    expect(isStoreUnavailableError(refused)).toBe(true);
    expect((refused as Error).message).toBe(
      `migrate: cannot reach Postgres at postgres://app:***@127.0.0.1:${closedPort}/app.`,
    );
    // A server that accepts the connection and never answers: the connect deadline ends the wait.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const started = Date.now();
      const stuck = await migrate({
        connectionString: `postgres://app:s3cret@127.0.0.1:${port}/app`,
      }).catch((error: unknown) => error);
      expect(isStoreUnavailableError(stuck)).toBe(true);
      expect(String((stuck as Error).message)).not.toContain('s3cret');
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('ready() names a schema that was never migrated; migrate() is idempotent and safe to race', async () => {
    const store = new PostgresJobStore({ connectionString: postgres.url, schema: 'not_migrated' });
    closers.push(() => store.close());
    await expect(store.ready()).rejects.toThrow(
      'The schema "not_migrated" has no gateway tables: run migrate() or svc-gateway-postgres migrate first.',
    );
    const applied = await Promise.all(
      Array.from({ length: 3 }, () => migrate({ connectionString: postgres.url, schema: 'raced' })),
    );
    // Each migration applied once, by one of the three; the others found it done.
    expect(applied.flat().sort((a, b) => a - b)).toEqual([1, 2, 3]);
    expect(await migrate({ connectionString: postgres.url, schema: 'raced' })).toEqual([]);
    const migrated = new PostgresJobStore({ connectionString: postgres.url, schema: 'raced' });
    closers.push(() => migrated.close());
    await expect(migrated.ready()).resolves.toBeUndefined();
  });

  it('migrate({ client: pool }) runs each migration on one connection of the pool, racing itself and the pool’s other traffic', async () => {
    // A pool runs each statement on any of its connections: BEGIN, the advisory lock, the
    // migration and COMMIT landed on different ones, so the lock held nothing and the pool's other
    // queries ran inside a migration's open transaction, until every connection waited on another.
    const pool = new pg.Pool({ connectionString: postgres.url, max: 4 });
    pool.on('error', () => {});
    closers.push(() => pool.end());
    await pool.query('CREATE TABLE IF NOT EXISTS public.pool_traffic (k text PRIMARY KEY, n int)');
    let running = true;
    const traffic = Array.from({ length: 4 }, async (_, worker) => {
      while (running)
        await pool.query(
          'INSERT INTO public.pool_traffic VALUES ($1, 1) ON CONFLICT (k) DO UPDATE SET n = pool_traffic.n + 1',
          [`w${worker}`],
        );
    });
    const migrating = Promise.all(
      Array.from({ length: 3 }, () => migrate({ client: pool, schema: 'pooled' })),
    );
    const outcome = await Promise.race([
      migrating,
      new Promise((resolve) => setTimeout(resolve, 10_000, 'hung')),
    ]);
    running = false;
    expect(outcome).not.toBe('hung');
    await Promise.all(traffic);
    expect((outcome as number[][]).flat().sort((a, b) => a - b)).toEqual([1, 2, 3]);
    const open = await pool.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'",
    );
    expect(open.rows[0].n).toBe(0);
  });

  it('refuses a schema name that is not a plain identifier', () => {
    expect(() => new PostgresJobStore({ schema: 'x"; DROP TABLE jobs; --' })).toThrow(
      /^new PostgresJobStore: schema is a string: expected letters, digits and _/,
    );
  });
});

describe('inside the caller’s own pg.Pool', () => {
  it('runs every statement in the given pool, receives cancels over LISTEN, and leaves the pool open on close()', async () => {
    const schema = await schemas.fresh('own');
    const pool = new pg.Pool({ connectionString: postgres.url, max: 3 });
    closers.push(() => pool.end());
    // B listens first, then reads the watched job's state once: a cancel committed before that
    // read would reach B by the read, not by a notification. The test waits for the read to
    // answer (seen in the pool, which is the test's own) before it cancels.
    let stateRead = (): void => {};
    const stateReadDone = new Promise<void>((resolve) => {
      stateRead = resolve;
    });
    const query = pool.query.bind(pool) as (config: pg.QueryConfig) => Promise<pg.QueryResult>;
    pool.query = (async (config: pg.QueryConfig) => {
      const result = await query(config);
      if (/^\s*SELECT job_id, status, cancel_requested\b/.test(config.text)) stateRead();
      return result;
    }) as typeof pool.query;
    const a = new PostgresJobStore({ pool, schema });
    const b = new PostgresJobStore({ pool, schema, cancelPollIntervalMs: 60_000 });
    await a.create(job('j1'));
    let cancelled = 0;
    b.onCancel('j1', () => {
      cancelled += 1;
    });
    await stateReadDone; // B's LISTEN connection is up, and its one read answered
    expect(cancelled).toBe(0);
    await a.requestCancel('j1');
    // Polling is off for a minute: only the notification can deliver it this fast.
    await eventually(async () => (cancelled === 1 ? true : undefined), 2_000, 'the NOTIFY');
    await a.close();
    await b.close();
    const { rows } = await pool.query(`SELECT status FROM "${schema}".jobs WHERE job_id = 'j1'`);
    expect(rows).toEqual([{ status: 'cancelled' }]);
  });
});

describe('outage logging (default reporter)', () => {
  it('one warn line when the database goes, one info line when it is back; no password, no stack', async () => {
    const own = await startPostgres();
    closers.push(() => own.stop());
    const schema = 'logged';
    await migrate({ connectionString: own.url, schema });
    const lines: { level: string; args: unknown[] }[] = [];
    for (const level of ['warn', 'info', 'error'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        lines.push({ level, args });
      });
    const store = new PostgresJobStore({
      connectionString: own.url,
      schema,
      sweepIntervalMs: 50, // many failing sweeps during the outage
      commandTimeoutMs: 1_000,
    });
    closers.push(() => store.close());
    await store.ready();
    await own.crash();
    await eventually(async () => (lines.length > 0 ? true : undefined), 5_000, 'the warn line');
    // What must NOT happen (another line for each failing sweep) has no event to wait for: a
    // fixed window of ~20 failing sweeps (every 50 ms) while the server is down.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await own.start();
    await eventually(
      async () => (lines.some((line) => line.level === 'info') ? true : undefined),
      10_000,
      'the info line',
    );
    expect(lines.map((line) => line.level)).toEqual(['warn', 'info']);
    for (const line of lines) expect(line.args.every((arg) => typeof arg === 'string')).toBe(true);
    expect(String(lines[0]!.args[0])).toMatch(
      new RegExp(
        `^\\[@svc/gateway-kit-postgres\\] Postgres connection to postgres://postgres@127\\.0\\.0\\.1:${own.port}/postgres lost`,
      ),
    );
    expect(lines[1]!.args[0]).toBe(
      `[@svc/gateway-kit-postgres] Postgres connection to postgres://postgres@127.0.0.1:${own.port}/postgres restored.`,
    );
    expect(new PostgresConnectionRestored('x')).toBeInstanceOf(Error);
  }, 60_000);
});
