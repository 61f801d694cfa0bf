import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  checkOptionNames,
  GatewayConfigError,
  refusalFor,
  StoreUnavailableError,
} from '@svc/gateway-kit/store';
import pg from 'pg';
import { checkConnectionString, quoteSchema, redactPostgresUrl } from './postgres-connection.ts';

/** How long `migrate`'s own client may take to connect: the stores' default `connectTimeoutMs`. */
const CONNECT_TIMEOUT_MS = 2_000;

/** The schema name written in the shipped SQL files, replaced by the one you choose. */
const PLACEHOLDER = /\bsvc_gateway\b/g;

/** One versioned migration shipped in the package's `migrations/` folder. */
export interface Migration {
  /** Its number: migrations apply in this order, each once (recorded in the schema). */
  readonly version: number;
  /** What it does, in a few words. */
  readonly name: string;
  /** The SQL with the schema name replaced. */
  readonly sql: string;
}

/**
 * Options of {@link migrate}.
 *
 * @example
 * const options: MigrateOptions = { connectionString: process.env.DATABASE_URL, schema: 'acme_gateway' };
 */
export interface MigrateOptions {
  /** `postgres://…`; or give `client`. Default: node-postgres' `PG*` environment variables. */
  readonly connectionString?: string;
  /**
   * A connected client (or pool) you own: `migrate` runs in it and leaves it open; from a pool
   * (`pg.Pool`) it takes one connection for the whole run and gives it back. Not with
   * `connectionString` (refused: it would go unused).
   */
  readonly client?: {
    /** Runs one SQL text (`pg.Client#query` / `pg.Pool#query`). */
    query(text: string): Promise<{ readonly rows: unknown[] }>;
  };
  /** Default `svc_gateway`. */
  readonly schema?: string;
}

/** The names of {@link MigrateOptions}: any other is refused (a misspelt one would be ignored). */
const MIGRATE_OPTION_NAMES: readonly string[] = Object.keys({
  connectionString: true,
  client: true,
  schema: true,
} satisfies Record<keyof MigrateOptions, true>);

function migrationsFolder(): string {
  // src/ in the repository, dist/ when installed: the SQL files sit beside either, one level up.
  return fileURLToPath(new URL('../migrations/', import.meta.url));
}

/**
 * The package's migrations for `schema`, in order (what {@link migrate} applies; also what to
 * review or hand to a DBA).
 *
 * @example
 * for (const migration of migrations('acme_gateway')) console.log(migration.version, migration.name);
 */
export function migrations(schema = 'svc_gateway'): Migration[] {
  const quoted = quoteSchema(schema, 'migrations');
  const folder = migrationsFolder();
  return readdirSync(folder)
    .filter((file) => /^\d{3}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 3)),
      name: file.slice(4, -4),
      sql: forSchema(readFileSync(`${folder}${file}`, 'utf8'), quoted),
    }));
}

/**
 * A shipped file for the quoted schema `quoted`. The leading comment explains the placeholder
 * (and how to replace it with sed), so it is kept as shipped, followed by a line saying that the
 * statements below already name `quoted`: a rewritten explanation would contradict itself.
 */
function forSchema(text: string, quoted: string): string {
  const header = /^(?:--[^\n]*\n)*/.exec(text)?.[0] ?? '';
  const note = `-- This copy is for the schema ${quoted}: the statements below already name it in place of svc_gateway.\n`;
  return `${header}${note}${text.slice(header.length).replace(PLACEHOLDER, quoted)}`;
}

/**
 * Brings the schema up to date: applies, each in its own transaction, the migrations it has not
 * applied yet, and returns their versions. Safe to run from several instances at once (an
 * advisory lock serialises them) and on every start-up.
 *
 * @example
 * import { migrate } from '@svc/gateway-kit-postgres';
 * await migrate({ connectionString: process.env.DATABASE_URL, schema: 'acme_gateway' });
 */
export async function migrate(options: MigrateOptions = {}): Promise<number[]> {
  checkOptionNames('migrate', options, MIGRATE_OPTION_NAMES);
  checkConnectionString(refusalFor('migrate'), 'connectionString', options.connectionString);
  // With a client of the caller's, it would silently go unused: migrate runs in the client.
  if (options.client !== undefined && options.connectionString !== undefined)
    throw new GatewayConfigError(
      'migrate: give connectionString or client, not client with connectionString.',
    );
  const schema = options.schema ?? 'svc_gateway';
  const quoted = quoteSchema(schema, 'migrate');
  const pending = migrations(schema);
  const owned = options.client
    ? undefined
    : new pg.Client({
        ...(options.connectionString ? { connectionString: options.connectionString } : {}),
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      });
  if (owned) await connect(owned, options.connectionString);
  // A transaction and its advisory lock hold on one connection: a pool would run each statement
  // on any of its own (no lock held, its other queries caught in an open transaction).
  const checkedOut = isPool(options.client) ? await options.client.connect() : undefined;
  const client = checkedOut ?? options.client ?? owned!;
  const applied: number[] = [];
  let failed: unknown;
  try {
    for (const migration of pending) {
      await client.query('BEGIN');
      try {
        // One migrator per schema at a time; the others wait, then find nothing to do.
        await client.query(
          `SELECT pg_advisory_xact_lock(hashtext('svc-gateway-migrate:' || ${literal(schema)}))`,
        );
        const exists = await client.query(
          `SELECT to_regclass(${literal(`${quoted}.schema_migrations`)}) IS NOT NULL AS present`,
        );
        let done = false;
        if ((exists.rows[0] as { present: boolean }).present) {
          const found = await client.query(
            `SELECT 1 FROM ${quoted}.schema_migrations WHERE version = ${migration.version}`,
          );
          done = found.rows.length > 0;
        }
        if (!done) {
          await client.query(migration.sql);
          applied.push(migration.version);
        }
        await client.query('COMMIT');
      } catch (error) {
        failed = error;
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    }
  } finally {
    // A connection whose migration failed is dropped rather than reused (it may be broken).
    checkedOut?.release(failed !== undefined);
    await owned?.end();
  }
  return applied;
}

/**
 * Connects `migrate`'s own client within {@link CONNECT_TIMEOUT_MS}; a failure rejects with a
 * `StoreUnavailableError` naming the database without its password, as the stores' do.
 */
async function connect(client: pg.Client, connectionString: string | undefined): Promise<void> {
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw new StoreUnavailableError(
      `migrate: cannot reach Postgres at ${redactPostgresUrl(connectionString)}.`,
      { cause: error },
    );
  }
}

/** A `pg.Pool` (its documented `totalCount`), not one client: `connect()` hands out a connection. */
function isPool(client: unknown): client is {
  connect(): Promise<{
    query(text: string): Promise<{ readonly rows: unknown[] }>;
    release(destroy?: boolean): void;
  }>;
} {
  const pool = client as { connect?: unknown; totalCount?: unknown } | undefined;
  return typeof pool?.connect === 'function' && typeof pool.totalCount === 'number';
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
