import { once } from 'node:events';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  GatewayConfigError,
  type Refuse,
  refusalFor,
  StoreUnavailableError,
  timerMs,
} from '@svc/gateway-kit/store';
import pg from 'pg';

/**
 * The part of a node-postgres `pg.Pool` the stores use. Pass your own `new pg.Pool(…)` as
 * {@link PostgresConnectionOptions.pool} to run the stores inside it.
 *
 * @example
 * import pg from 'pg';
 * const pool: PostgresPool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 */
export interface PostgresPool {
  /** Runs one parameterised statement on a connection of the pool (`pg.Pool#query`). */
  query(config: {
    readonly text: string;
    readonly values?: readonly unknown[];
  }): Promise<{ readonly rows: unknown[] }>;
  /** Closes the pool's connections (`pg.Pool#end`); the stores call it only on a pool they made. */
  end(): Promise<void>;
  /** node-postgres keeps the pool's connection settings here; used for the LISTEN connection. */
  readonly options?: object;
}

/**
 * How a Postgres store connects. Give `connectionString` and the store opens and owns a pool; or
 * give your own `pool` (node-postgres `pg.Pool`) and the store runs its statements in it and
 * leaves it open on `close()`.
 *
 * @example
 * const connection: PostgresConnectionOptions = {
 *   connectionString: process.env.DATABASE_URL,
 *   schema: 'acme_gateway',
 *   commandTimeoutMs: 2_000,
 * };
 */
export interface PostgresConnectionOptions {
  /** `postgres://user:password@host:5432/db`. Default: node-postgres' `PG*` environment variables. */
  readonly connectionString?: string;
  /**
   * A `pg.Pool` you own; the store never ends it. Set `query_timeout` on it (see docs/postgres.md).
   * Not with `connectionString` or `poolSize` (refused: they would go unused).
   */
  readonly pool?: PostgresPool;
  /** Connections of the pool the store opens (not used with `pool`). Default 10. */
  readonly poolSize?: number;
  /**
   * The schema holding the tables (created by {@link migrate}). Instances that share jobs use the
   * same schema. Letters, digits and `_`, starting with a letter or `_`. Default `svc_gateway`.
   */
  readonly schema?: string;
  /**
   * How long one store call may take before it fails with `StoreUnavailableError`, in ms, whatever
   * the database does (down, paused, partitioned, pool exhausted): the store enforces it itself;
   * on the pool it opens it is also the server's `statement_timeout` and the driver's
   * `query_timeout`, so a connection that missed it is dropped. Default 2000.
   */
  readonly commandTimeoutMs?: number;
  /** How long opening a connection may take, in ms. Default 2000. */
  readonly connectTimeoutMs?: number;
  /**
   * Receives connection problems, each state change once (lost, restored), and failures of
   * background work outside a known outage. Default: one `console.warn` line when the database is
   * lost, one `console.info` line when it is back, `console.error` for anything else.
   */
  readonly onError?: (error: unknown) => void;
}

/** The names of {@link PostgresConnectionOptions}, for the stores' unknown-option check. */
export const CONNECTION_OPTION_NAMES: readonly string[] = Object.keys({
  connectionString: true,
  pool: true,
  poolSize: true,
  schema: true,
  commandTimeoutMs: true,
  connectTimeoutMs: true,
  onError: true,
} satisfies Record<keyof PostgresConnectionOptions, true>);

// Option names are checked with `checkOptionNames` from @svc/gateway-kit/store.

const CONNECTION_STRING_FORM =
  'a PostgreSQL URL: postgres[ql]://[user[:password]@][host][:port][/database][?param=value…] or socket:/path/to/dir?db=database.';

/**
 * Refuses a connection string node-postgres could not use: not a string, empty (the `PG*`
 * variables' database would be used instead: an environment variable left unset), with spaces
 * around it (node-postgres would read a leading one as part of a path and connect to the host
 * `base`), another scheme, or one node-postgres cannot parse (a port that is no number). The
 * refusal names the option and the form expected, and holds nothing of the string (no `cause`).
 * `undefined` is the default (the `PG*` variables).
 */
export function checkConnectionString(refuse: Refuse, path: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || value === '')
    refuse(path, value, `expected ${CONNECTION_STRING_FORM}`, true);
  if (value.trim() !== value || !isConnectionString(value))
    refuse(path, value, `expected ${CONNECTION_STRING_FORM}`);
}

/**
 * Whether node-postgres' parser (pg-connection-string) reads `text` as a connection string, and
 * with one of its schemes: its steps up to where it would throw, without reading the files
 * `sslcert`/`sslkey`/`sslrootcert` name (it reads them on connect). `/path/to/dir database` is its
 * Unix-socket form.
 */
export function isConnectionString(text: string): boolean {
  if (text.startsWith('/')) return true;
  try {
    const url = parseConnectionUrl(text);
    if (url === null || !['postgres:', 'postgresql:', 'socket:'].includes(url.protocol))
      return false;
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
    decodeURIComponent(url.hostname);
    decodeURI(url.pathname);
    // node-postgres takes `?port=` over the URL's port, unchecked: a connect to `abc` never
    // settles (and later fails on an unhandled error event).
    const port = url.searchParams.get('port');
    return port === null || (/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65_535);
  } catch {
    // Not rethrown, not kept as a cause: the error (a URIError, an `input`) may hold the password.
    return false;
  }
}

/** The host node-postgres' parser puts in an empty one (`user@/db`) to parse the rest. */
const NO_HOST = '___DUMMY___';

/**
 * A connection string parsed as node-postgres' parser parses it: spaces and stray `%` encoded,
 * and an empty host (`postgres://user:password@/db?host=/cloudsql/…`, the socket form cloud
 * providers document) parsed with a stand-in host. `null` when it does not parse. Never throws
 * (an error may hold the password).
 */
export function parseConnectionUrl(text: string): URL | null {
  let encoded = text;
  if (/ |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(text)) {
    try {
      encoded = encodeURI(text).replace(/%25(\d\d)/g, '%$1');
    } catch {
      return null; // a lone surrogate
    }
  }
  return URL.parse(encoded) ?? URL.parse(encoded.replace('@/', `@${NO_HOST}/`));
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The schema name as a quoted SQL identifier, after checking it is a plain name (else the
 * `GatewayConfigError` of `factory`, the function whose `schema` option it is).
 *
 * @example
 * quoteSchema('acme_gateway', 'migrate'); // '"acme_gateway"'
 */
export function quoteSchema(schema: string, factory: string): string {
  if (!SCHEMA_NAME.test(schema))
    refusalFor(factory)(
      'schema',
      schema,
      'expected letters, digits and _ (at most 63, not starting with a digit).',
    );
  return `"${schema}"`;
}

/**
 * The advisory lock class of one purpose in one schema (schemas never share locks).
 *
 * @example
 * lockClass('sets', 'acme_gateway'); // a stable 32-bit integer
 */
export function lockClass(purpose: string, schema = 'svc_gateway'): number {
  const text = `svc-gateway-${purpose}:${schema}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

/**
 * `url` without its password (`postgres://user:***@host:5432/db`), for messages and logs; a
 * `password` query parameter, which node-postgres reads too, is hidden the same way.
 *
 * @example
 * redactPostgresUrl('postgres://app:s3cret@db:5432/app'); // 'postgres://app:***@db:5432/app'
 * redactPostgresUrl('postgres://app@db/app?password=s3cret'); // 'postgres://app@db/app?password=***'
 */
export function redactPostgresUrl(url: string | undefined): string {
  if (url === undefined) return 'the database named by the PG* environment variables';
  const parsed = parseConnectionUrl(url);
  if (parsed === null) return 'an unparseable database URL';
  if (parsed.password) parsed.password = '***';
  if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
  // The host-less form is shown as it was given, without the stand-in host.
  return parsed.toString().replace(`@${NO_HOST}/`, '@/');
}

/**
 * Reported (to `onError`) when a lost database connection is back. Not an error: the default
 * reporter logs it with `console.info`.
 *
 * @example
 * const onError = (event: unknown) =>
 *   event instanceof PostgresConnectionRestored ? log.info(event.message) : log.warn(String(event));
 */
export class PostgresConnectionRestored extends Error {
  /** Always `'PostgresConnectionRestored'`. */
  override readonly name = 'PostgresConnectionRestored';
}

// SQLSTATE classes that mean "the database cannot serve right now": connection exceptions (08),
// a login the server refuses (28: a wrong or rotated password, a pg_hba rule; every connection
// fails until it is fixed, as Redis' WRONGPASS does), transaction rollbacks such as serialization
// failures and deadlocks (40), insufficient resources (53), operator intervention incl. shutdown
// and statement_timeout (57), system errors (58).
const TRANSIENT_CLASS = /^(08|28|40|53|57|58)/;

/** The server's reason for refusing a login (SQLSTATE class 28): it names the user, no password. */
function refusedLogin(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('28') && error instanceof Error
    ? error.message
    : undefined;
}

function isTransient(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  // Errors without a SQLSTATE are the driver's: network, timeouts, terminated connections.
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return TRANSIENT_CLASS.test(code);
}

function defaultReporter(error: unknown): void {
  if (error instanceof PostgresConnectionRestored) console.info(error.message);
  else if (error instanceof StoreUnavailableError) console.warn(error.message);
  else console.error('[@svc/gateway-kit-postgres]', error);
}

/**
 * The part of a node-postgres `pg.Client` the LISTEN connection uses: typed here so that the
 * package's declarations need no `@types/pg`.
 */
export interface PostgresListenClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'notification', listener: (message: { payload?: string | undefined }) => void): unknown;
  on(event: 'error' | 'end', listener: () => void): unknown;
}

/** One pool (owned or the caller's) with deadlines, outage reporting and error translation. */
export class PostgresConnection {
  readonly pool: PostgresPool;
  /** The quoted schema name. */
  readonly schema: string;
  readonly commandTimeoutMs: number;
  readonly #owned: boolean;
  readonly #report: (error: unknown) => void;
  readonly #target: string;
  readonly #listenConfig: pg.ClientConfig;
  /** The sockets of the connections this store opened, until they close. */
  readonly #sockets = new Set<Duplex>();
  #down = false;
  /** `performance.now()` of the first answer since the last failure (or since start-up). */
  #answeringSince: number | undefined;
  #closed = false;

  /** `factory` names the store in option errors (`new PostgresJobStore: poolSize is …`). */
  constructor(options: PostgresConnectionOptions, factory = 'new PostgresConnection') {
    const refuse = refusalFor(factory);
    // Before pg sees it: pg parses it on every connect, so an unusable one made every call an
    // outage (503, pg's parse error as its cause) instead of a refusal at start-up.
    checkConnectionString(refuse, 'connectionString', options.connectionString);
    this.commandTimeoutMs = options.commandTimeoutMs ?? 2_000;
    const connectTimeoutMs = options.connectTimeoutMs ?? 2_000;
    timerMs(refuse, 'commandTimeoutMs', this.commandTimeoutMs);
    timerMs(refuse, 'connectTimeoutMs', connectTimeoutMs);
    const poolSize = options.poolSize ?? 10;
    if (!Number.isSafeInteger(poolSize) || poolSize < 1)
      refuse('poolSize', poolSize, 'expected a positive integer.');
    // With a pool of the caller's, these would silently go unused: the pool is used as it is.
    const unused = [
      options.connectionString !== undefined && 'connectionString',
      options.poolSize !== undefined && 'poolSize',
    ].filter(Boolean);
    if (options.pool !== undefined && unused.length > 0)
      throw new GatewayConfigError(
        `${factory}: give connectionString (and poolSize) or pool, not pool with ${unused.join(' and ')}.`,
      );
    this.schema = quoteSchema(options.schema ?? 'svc_gateway', factory);
    this.#report = options.onError ?? defaultReporter;
    this.#target = redactPostgresUrl(options.connectionString);
    if (options.pool) {
      this.pool = options.pool;
      this.#owned = false;
      this.#listenConfig = { ...(options.pool.options ?? {}) } as pg.ClientConfig;
    } else {
      const config: pg.PoolConfig = {
        ...(options.connectionString ? { connectionString: options.connectionString } : {}),
        max: options.poolSize ?? 10,
        connectionTimeoutMillis: connectTimeoutMs,
        query_timeout: this.commandTimeoutMs,
        statement_timeout: this.commandTimeoutMs,
        // Half-open connections (a partitioned or frozen server) are found by the OS too.
        keepAlive: true,
        application_name: 'svc-gateway-kit',
      };
      const pool = new pg.Pool({ ...config, stream: () => this.#openSocket(undefined) });
      // Idle clients that lose their connection emit here; the next call reports the outage.
      pool.on('error', () => {});
      this.pool = pool;
      this.#owned = true;
      this.#listenConfig = config;
    }
  }

  /** Runs one statement within `commandTimeoutMs`; outages become `StoreUnavailableError`. */
  async query<R>(text: string, values: readonly unknown[] = []): Promise<R[]> {
    if (this.#closed) throw new StoreUnavailableError('The Postgres store is closed.');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new StoreUnavailableError(
              `Postgres at ${this.#target} did not answer within ${this.commandTimeoutMs} ms.`,
            ),
          ),
        this.commandTimeoutMs,
      );
    });
    try {
      // Inside the try: pg throws at once on some configurations (a connection string whose port
      // is no number), and the deadline's timer must still be cleared.
      const running = this.pool.query({ text, values });
      // A late answer (or failure) after the deadline is dropped.
      running.catch(() => {});
      const result = await Promise.race([running, deadline]);
      this.#answeringSince ??= performance.now();
      if (this.#down) {
        this.#down = false;
        this.#report(
          new PostgresConnectionRestored(
            `[@svc/gateway-kit-postgres] Postgres connection to ${this.#target} restored.`,
          ),
        );
      }
      return result.rows as R[];
    } catch (error) {
      throw this.#translate(error);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The error of a call that missed `commandTimeoutMs` (for calls whose deadline the caller keeps,
   * e.g. a write waiting in the store's write batcher); reports the outage like `query` does.
   */
  deadlineExceeded(): StoreUnavailableError {
    const error = new StoreUnavailableError(
      `Postgres at ${this.#target} did not answer within ${this.commandTimeoutMs} ms.`,
    );
    this.#markDown(error);
    return error;
  }

  /** A dedicated client for LISTEN (never from the pool: it stays in a session). */
  listenClient(): PostgresListenClient {
    const given = this.#listenConfig.stream;
    return new pg.Client({ ...this.#listenConfig, stream: () => this.#openSocket(given) });
  }

  /**
   * The socket of a new connection, made by the pool's stream factory if it has one (a cloud
   * connector's), kept until it closes so that {@link close} can destroy it.
   */
  #openSocket(given: unknown): Duplex {
    const socket: Duplex =
      typeof given === 'function' ? given() : ((given as Duplex | undefined) ?? new Socket());
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    return socket;
  }

  /** Reports a failure of background work, unless it is part of an outage already reported. */
  report(error: unknown): void {
    if (this.#closed) return;
    if (isTransient(error)) {
      this.#markDown(error);
      return;
    }
    this.#report(error);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // node-postgres ends a connection by waiting for the server to close it, which a paused or
    // partitioned server never does: past the deadline the sockets still open are destroyed, so
    // that close() returns and the process can exit.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      (async () => {
        if (this.#owned) await this.pool.end().catch(() => {});
        await Promise.all([...this.#sockets].map((socket) => once(socket, 'close')));
      })(),
      new Promise((resolve) => {
        timer = setTimeout(resolve, this.commandTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    for (const socket of this.#sockets) socket.destroy();
  }

  get closed(): boolean {
    return this.#closed;
  }

  #translate(error: unknown): unknown {
    if (!isTransient(error)) return error;
    const refused = refusedLogin(error);
    const unavailable =
      error instanceof StoreUnavailableError
        ? error
        : new StoreUnavailableError(
            refused === undefined
              ? `Cannot reach Postgres at ${this.#target}.`
              : `Postgres at ${this.#target} refused the login: ${refused}.`,
            { cause: error },
          );
    this.#markDown(unavailable);
    return unavailable;
  }

  /**
   * How long the database has answered every call without a failure, in ms (0 when the last call
   * failed or none answered yet). A lease sweeper waits for a whole lease of it after an outage,
   * so that live instances renew their leases before anyone takes them for dead.
   */
  answeringForMs(): number {
    return this.#answeringSince === undefined ? 0 : performance.now() - this.#answeringSince;
  }

  #markDown(error: unknown): void {
    this.#answeringSince = undefined;
    if (this.#down || this.#closed) return;
    this.#down = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.#report(
      new StoreUnavailableError(
        `[@svc/gateway-kit-postgres] Postgres connection to ${this.#target} lost (${reason}); calls answer 503 until it is back.`,
      ),
    );
  }
}
