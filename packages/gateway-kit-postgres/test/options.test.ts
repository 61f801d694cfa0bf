import { inspect } from 'node:util';
import { GatewayConfigError } from '@svc/gateway-kit/store';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  type MigrateOptions,
  migrate,
  PostgresJobStore,
  type PostgresJobStoreOptions,
  PostgresRecordStore,
  type PostgresRecordStoreOptions,
} from '../src/index.ts';

// Option checks run in the constructor, before any connection: no PostgreSQL needed.
const caps = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10'];

describe('a cap on what callers make the store keep is a positive integer (0 is refused, never "unbounded")', () => {
  it.each(
    ['maxJobs', 'maxFinishedPerOwner', 'maxPendingCallbacks', 'maxPendingCallbacksPerPrincipal']
      .concat('maxPendingCallbackBytesPerPrincipal', 'poolSize')
      .flatMap((option) => caps.map((value) => [option, value] as const)),
  )(
    'new PostgresJobStore({ %s: %o }) throws a GatewayConfigError naming the option',
    (option, value) => {
      expect(() => new PostgresJobStore({ [option]: value })).toThrow(GatewayConfigError);
      expect(() => new PostgresJobStore({ [option]: value })).toThrow(
        new RegExp(`^new PostgresJobStore: ${option} is .*: expected a positive integer\\.$`),
      );
    },
  );

  it.each(caps)(
    'new PostgresRecordStore({ maxRecords: %o }) throws a GatewayConfigError',
    (value) => {
      expect(() => new PostgresRecordStore({ maxRecords: value as number })).toThrow(
        /^new PostgresRecordStore: maxRecords is .*: expected a positive integer\.$/,
      );
    },
  );
});

describe('other options, in the same message style', () => {
  it.each([
    [
      { leaseMs: 0 },
      'new PostgresJobStore: leaseMs is the number 0: expected a positive integer of milliseconds up to 2147483647.',
    ],
    [
      { sweepIntervalMs: -1 },
      'new PostgresJobStore: sweepIntervalMs is the number -1: expected 0 (off) or a positive integer of milliseconds up to 2147483647.',
    ],
    [
      { commandTimeoutMs: 0 },
      'new PostgresJobStore: commandTimeoutMs is the number 0: expected a positive integer of milliseconds up to 2147483647.',
    ],
    [
      { schema: 'x"; DROP TABLE jobs; --' },
      'new PostgresJobStore: schema is a string: expected letters, digits and _ (at most 63, not starting with a digit).',
    ],
  ])('%o → %s', (options, message) => {
    expect(() => new PostgresJobStore(options as never)).toThrow(new GatewayConfigError(message));
  });

  it('migrate refuses a schema name that is not a plain identifier, before connecting', async () => {
    await expect(migrate({ schema: 'a-b' })).rejects.toThrow(
      /^migrate: schema is a string: expected letters/,
    );
  });
});

// Above 2 147 483 647 ms a timer fires at once: an interval would spin, a deadline never wait.
const MAX_TIMER_MS = 2_147_483_647;
const durations = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10', 2 ** 31, 2 ** 53];
const timers = [
  'leaseMs',
  'cancelPollIntervalMs',
  'callbackPollIntervalMs',
  'commandTimeoutMs',
  'connectTimeoutMs',
];

describe('a duration a timer waits for is a positive integer of ms that a timer holds', () => {
  it.each(timers.flatMap((option) => durations.map((value) => [option, value] as const)))(
    'new PostgresJobStore({ %s: %o }) throws a GatewayConfigError naming the option',
    (option, value) => {
      const create = () => new PostgresJobStore({ [option]: value });
      expect(create).toThrow(GatewayConfigError);
      expect(create).toThrow(
        new RegExp(
          `^new PostgresJobStore: ${option} is .*: expected a positive integer of milliseconds up to 2147483647\\.$`,
        ),
      );
    },
  );

  it.each(durations.filter((value) => value !== 0))(
    'sweepIntervalMs %o is refused by both stores (0 turns the sweeper off)',
    (value) => {
      const expected = (factory: string) =>
        new RegExp(
          `^new ${factory}: sweepIntervalMs is .*: expected 0 \\(off\\) or a positive integer of milliseconds up to 2147483647\\.$`,
        );
      expect(() => new PostgresJobStore({ sweepIntervalMs: value as number })).toThrow(
        expected('PostgresJobStore'),
      );
      expect(() => new PostgresRecordStore({ sweepIntervalMs: value as number })).toThrow(
        expected('PostgresRecordStore'),
      );
    },
  );

  it.each(['commandTimeoutMs', 'connectTimeoutMs'])(
    'new PostgresRecordStore({ %s: 2 ** 31 }) throws too',
    (option) => {
      expect(() => new PostgresRecordStore({ [option]: 2 ** 31 })).toThrow(
        new RegExp(
          `^new PostgresRecordStore: ${option} is the number 2147483648: expected a positive integer of milliseconds up to 2147483647\\.$`,
        ),
      );
    },
  );

  it('2147483647 ms, the longest a timer holds, is accepted for each; sweepIntervalMs 0 too', async () => {
    const connectionString = 'postgres://gateway@127.0.0.1:1/app';
    const longest = Object.fromEntries(timers.map((option) => [option, MAX_TIMER_MS]));
    const stores = [
      new PostgresJobStore({ connectionString, onError: () => {}, ...longest }),
      new PostgresJobStore({ connectionString, onError: () => {}, sweepIntervalMs: 0 }),
      new PostgresJobStore({ connectionString, onError: () => {}, sweepIntervalMs: MAX_TIMER_MS }),
      new PostgresRecordStore({ connectionString, onError: () => {}, sweepIntervalMs: 0 }),
      new PostgresRecordStore({ connectionString, sweepIntervalMs: MAX_TIMER_MS }),
    ];
    for (const store of stores) await store.close();
  });
});

describe('an unknown option name is refused (it used to be ignored, the store falling back to its defaults)', () => {
  it.each([
    [{ leaseMss: 5_000 }, 'unknown option "leaseMss"'],
    [{ urll: 'postgres://db/app' }, 'unknown option "urll"'],
    [{ maxJob: 5 }, 'unknown option "maxJob"'],
    // A misspelt connectionString connected to the PG* variables' database instead.
    [
      { connectionStrng: 'postgres://db/app', schma: 'acme' },
      'unknown options "connectionStrng", "schma"',
    ],
  ])('new PostgresJobStore(%o) names it and lists the known ones', (options, unknown) => {
    const create = () => new PostgresJobStore(options as never);
    expect(create).toThrow(GatewayConfigError);
    expect(create).toThrow(
      new RegExp(
        `^new PostgresJobStore: ${unknown} \\(known: connectionString, pool, poolSize, schema, commandTimeoutMs, connectTimeoutMs, onError, retentionMs, .*, leaseMs, .*, onListenerError\\)\\.$`,
      ),
    );
  });

  it('new PostgresRecordStore({ maxRecord }) and a job-store-only option name are refused', () => {
    expect(() => new PostgresRecordStore({ maxRecord: 5 } as never)).toThrow(
      new GatewayConfigError(
        'new PostgresRecordStore: unknown option "maxRecord" (known: connectionString, pool, poolSize, schema, commandTimeoutMs, connectTimeoutMs, onError, maxRecords, sweepIntervalMs).',
      ),
    );
    expect(() => new PostgresRecordStore({ leaseMs: 1_000 } as never)).toThrow(
      /^new PostgresRecordStore: unknown option "leaseMs" \(known: /,
    );
  });

  it('migrate({ schma }) rejects before connecting (it used to migrate svc_gateway)', async () => {
    await expect(migrate({ schma: 'acme' } as never)).rejects.toThrow(
      new GatewayConfigError(
        'migrate: unknown option "schma" (known: connectionString, client, schema).',
      ),
    );
    await expect(migrate({ url: 'postgres://db/app' } as never)).rejects.toThrow(
      /^migrate: unknown option "url" \(known: /,
    );
  });

  it('the message shows names, never the values (an unknown option may hold a secret)', () => {
    const create = () => new PostgresJobStore({ password: 'S3cr3tPassw0rd' } as never);
    expect(create).toThrow(/unknown option "password"/);
    expect(create).not.toThrow(/S3cr3t/);
  });

  it.each([
    [null, 'is null'],
    [[], 'is an empty array'],
    ['postgres://db/app', 'is a string'],
  ])('options %o are refused: not an options object', async (options, kind) => {
    const expected = (factory: string) =>
      new GatewayConfigError(`${factory}: options ${kind}: expected an options object.`);
    expect(() => new PostgresJobStore(options as never)).toThrow(expected('new PostgresJobStore'));
    expect(() => new PostgresRecordStore(options as never)).toThrow(
      expected('new PostgresRecordStore'),
    );
    await expect(migrate(options as never)).rejects.toThrow(expected('migrate'));
  });

  it('a pool with connectionString or poolSize is refused (they would go unused: the pool is used as it is)', async () => {
    const pool = new pg.Pool({ connectionString: 'postgres://gateway:pw@127.0.0.1:1/app' });
    const connectionString = 'postgres://other:s3cret-pw@127.0.0.1:1/other';
    for (const [options, given] of [
      [{ pool, connectionString }, 'connectionString'],
      [{ pool, poolSize: 20 }, 'poolSize'],
      [{ pool, connectionString, poolSize: 20 }, 'connectionString and poolSize'],
    ] as const) {
      for (const [factory, create] of [
        ['new PostgresJobStore', () => new PostgresJobStore(options)],
        ['new PostgresRecordStore', () => new PostgresRecordStore(options)],
      ] as const) {
        let error: unknown;
        try {
          create();
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(GatewayConfigError);
        expect((error as Error).message).toBe(
          `${factory}: give connectionString (and poolSize) or pool, not pool with ${given}.`,
        );
        expect(inspect(error, { depth: 5 })).not.toContain('s3cret-pw');
      }
    }
    await pool.end();
  });

  it('migrate refuses a client with connectionString (it would go unused: migrate runs in the client)', async () => {
    let statements = 0;
    const client = {
      query: async (): Promise<never> => {
        statements++;
        throw new Error('reached the database');
      },
    };
    const connectionString = 'postgres://other:s3cret-pw@127.0.0.1:1/other';
    let error: unknown;
    try {
      await migrate({ client, connectionString, schema: 'acme_gateway' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayConfigError);
    expect((error as Error).message).toBe(
      'migrate: give connectionString or client, not client with connectionString.',
    );
    expect(inspect(error, { depth: 5 })).not.toContain('s3cret-pw');
    expect(statements).toBe(0);
    // connectionString left unset (undefined) beside a client is no connection string.
    await expect(migrate({ client, connectionString: undefined } as never)).rejects.toThrow(
      'reached the database',
    );
  });

  it('every documented option is still accepted, with a connection string or a pool', async () => {
    const connection = {
      schema: 'acme_gateway',
      commandTimeoutMs: 1_000,
      connectTimeoutMs: 1_000,
      onError: () => {},
    };
    const jobOptions = {
      retentionMs: 60_000,
      maxJobs: 100,
      maxFinishedPerOwner: 10,
      leaseMs: 3_000,
      sweepIntervalMs: 0,
      cancelPollIntervalMs: 1_000,
      listen: false,
      callbackPollIntervalMs: 1_000,
      maxPendingCallbacks: 100,
      maxPendingCallbacksPerPrincipal: 10,
      maxPendingCallbackBytesPerPrincipal: 1_000,
      transactionalCallbacks: false,
      instanceId: 'instance-1',
      onListenerError: () => {},
    };
    const recordOptions = { maxRecords: 100, sweepIntervalMs: 0 };
    const connectionString = 'postgres://gateway:pw@127.0.0.1:1/app';
    const pool = new pg.Pool({ connectionString });
    // Required<…>: an option added to an interface must be added here too.
    const allJob = {
      connectionString,
      poolSize: 2,
      ...connection,
      ...jobOptions,
    } satisfies Omit<Required<PostgresJobStoreOptions>, 'pool'>;
    const allRecord = {
      connectionString,
      poolSize: 2,
      ...connection,
      ...recordOptions,
    } satisfies Omit<Required<PostgresRecordStoreOptions>, 'pool'>;
    const stores = [
      new PostgresJobStore(allJob),
      new PostgresJobStore({ pool, ...connection, ...jobOptions }),
      // An option left unset (undefined) still means the default.
      new PostgresJobStore({ connectionString: undefined, sweepIntervalMs: 0 } as never),
      new PostgresRecordStore(allRecord),
      new PostgresRecordStore({ pool, ...connection, ...recordOptions }),
    ];
    await Promise.all(stores.map((store) => store.close()));
    await pool.end();
    // migrate's options pass the check, in either form: it goes on to the database (here nothing
    // listens on the connection string's port; the client refuses every statement).
    await expect(
      migrate({
        connectionString,
        schema: 'acme_gateway',
      } satisfies Omit<Required<MigrateOptions>, 'client'>),
    ).rejects.toMatchObject({ name: 'StoreUnavailableError', cause: { code: 'ECONNREFUSED' } });
    const client = {
      query: async (): Promise<never> => {
        throw new Error('reached the database');
      },
    };
    await expect(
      migrate({
        client,
        schema: 'acme_gateway',
      } satisfies Omit<Required<MigrateOptions>, 'connectionString'>),
    ).rejects.toThrow('reached the database');
  });
});

describe('a connection string node-postgres cannot use is refused naming the option, with nothing of it in the error', () => {
  const password = 'S3cr3tPassw0rd';
  /** Every run of 5 characters of the password: no part of it may show. */
  const parts = Array.from({ length: password.length - 4 }, (_, i) => password.slice(i, i + 5));
  const form =
    'a PostgreSQL URL: postgres[ql]://[user[:password]@][host][:port][/database][?param=value…] or socket:/path/to/dir?db=database.';
  // The strings, each holding the password, and what the error calls them.
  const refused: [string, string][] = [
    [`postgres://app:${password}@db:port/app`, 'a string'], // a port that is no number
    [`postgres://app:${password}@db:99999/app`, 'a string'], // a port out of range
    [`postgres://app:${password}%ff@db/app`, 'a string'], // a password pg cannot decode
    // A port parameter overrides the URL's: node-postgres parses it but never
    // settles a connect to it.
    [`postgres://app:${password}@db/app?port=abc`, 'a string'],
    [`postgres://app:${password}@db/app?port=70000`, 'a string'],
    [`mysql://app:${password}@db/app`, 'a string'], // another scheme
    [`app:${password}@db:5432/app`, 'a string'], // no scheme: the password reads as a path
    [` postgres://app:${password}@db/app`, 'a string with surrounding spaces'], // host `base`
    [`postgres://app:${password}@db/app `, 'a string with surrounding spaces'],
    [`postgres://app:${password}@db/app\n`, 'a string with surrounding spaces'],
  ];
  const refusal = async (create: () => unknown): Promise<Error> => {
    try {
      await create();
    } catch (error) {
      return error as Error;
    }
    throw new Error('expected a refusal');
  };
  const factories: [string, (connectionString: string) => unknown][] = [
    ['new PostgresJobStore', (connectionString) => new PostgresJobStore({ connectionString })],
    [
      'new PostgresRecordStore',
      (connectionString) => new PostgresRecordStore({ connectionString }),
    ],
    ['migrate', (connectionString) => migrate({ connectionString })],
  ];

  it.each(
    factories.flatMap(([factory, create]) =>
      refused.map(([text, kind]) => [factory, JSON.stringify(text), create, text, kind] as const),
    ),
  )('%s({ connectionString: %s })', async (factory, _shown, create, text, kind) => {
    const error = await refusal(() => create(text));
    expect(error).toBeInstanceOf(GatewayConfigError);
    expect(error.message).toBe(`${factory}: connectionString is ${kind}: expected ${form}`);
    // What console.error(error), a logger's JSON and a look at its properties would show.
    const shown = [
      inspect(error, { depth: 10, showHidden: true }),
      JSON.stringify(error),
      JSON.stringify(
        Object.getOwnPropertyNames(error).map((key) => [key, String(Reflect.get(error, key))]),
      ),
      String(error.cause),
    ].join('\n');
    for (const part of parts) expect(shown).not.toContain(part);
  });

  it('an empty connectionString is refused (it used to connect to the PG* variables’ database), with the unset-variable hint', async () => {
    const message = (factory: string) =>
      `${factory}: connectionString is an empty string: is an environment variable unset? (expected ${form.slice(0, -1)})`;
    expect(() => new PostgresJobStore({ connectionString: '' })).toThrow(
      new GatewayConfigError(message('new PostgresJobStore')),
    );
    expect(() => new PostgresRecordStore({ connectionString: '' })).toThrow(
      new GatewayConfigError(message('new PostgresRecordStore')),
    );
    await expect(migrate({ connectionString: '' })).rejects.toThrow(
      new GatewayConfigError(message('migrate')),
    );
  });

  it.each([null, 5432, { host: 'db' }])('a connectionString that is %o is refused', (value) => {
    expect(() => new PostgresJobStore({ connectionString: value as never })).toThrow(
      /^new PostgresJobStore: connectionString is (null|a number|an object): expected a PostgreSQL URL: /,
    );
  });

  // The forms node-postgres reads (pg-connection-string): the check must refuse none of them.
  const accepted = [
    'postgres://app:pw@db:5432/app',
    'postgresql://app@db/app?sslmode=verify-full&application_name=x',
    'postgres://app:pw@/app', // no host: PGHOST or localhost
    'postgres:///app',
    'postgres://app:p w%zz@db/app', // a space and a stray % (pg encodes them)
    'postgres://app:pw@[::1]:5432/app',
    'postgres://%2Fvar%2Frun%2Fpostgresql/app', // an encoded socket folder as the host
    'socket://app:pw@/var/run/postgresql?db=app',
    'socket:/var/run/postgresql?db=app',
    '/var/run/postgresql app',
  ];

  it.each(accepted)('%s is accepted, and node-postgres reads it too', async (connectionString) => {
    expect(() => new pg.Client({ connectionString })).not.toThrow();
    const stores = [
      new PostgresJobStore({ connectionString, sweepIntervalMs: 0 }),
      new PostgresRecordStore({ connectionString, sweepIntervalMs: 0 }),
    ];
    await Promise.all(stores.map((store) => store.close()));
  });

  it('what the check refuses as unparseable, node-postgres cannot parse either', () => {
    for (const [connectionString] of refused.slice(0, 3))
      expect(() => new pg.Client({ connectionString }), connectionString).toThrow();
  });
});
