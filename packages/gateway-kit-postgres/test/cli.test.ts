import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startPostgres, type TestPostgres } from './postgres-server.ts';

// The svc-gateway-postgres bin as installed (dist/cli.js; the test task builds first), spawned
// with an environment holding no database settings unless a test gives them.
const BIN = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const DATABASE_VARIABLES = ['DATABASE_URL', 'PGHOST', 'PGPORT', 'PGDATABASE', 'PGUSER'];

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !DATABASE_VARIABLES.includes(name) && !name.startsWith('PG'),
    ),
  );
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...base, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let postgres: TestPostgres;
let client: pg.Client;
beforeAll(async () => {
  postgres = await startPostgres();
  client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await postgres?.stop();
});

const tables = async (schema: string): Promise<number> =>
  (
    await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1',
      [schema],
    )
  ).rows[0]!.n;

describe('svc-gateway-postgres: invocation', () => {
  it('--help and -h print the usage on stdout and exit 0', async () => {
    for (const args of [['--help'], ['-h'], ['migrate', '--help'], ['sql', '-h']]) {
      const run = await cli(args);
      expect(run, args.join(' ')).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(/^Usage: svc-gateway-postgres migrate/);
    }
  });

  it('without a command: exit 2, the usage on stderr', async () => {
    const run = await cli([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Usage: svc-gateway-postgres');
  });

  it('an unknown flag is named, with the usage, exit 2, and nothing is run', async () => {
    for (const [args, flag] of [
      [['--bogus'], '--bogus'],
      [['sql', '--shema', 'acme'], '--shema'],
      [['migrate', '--connection-string', postgres.url], '--connection-string'],
      [['migrate', '--ur=postgres://app:s3cret@127.0.0.1/app'], '--ur'],
    ] as const) {
      const run = await cli([...args], { DATABASE_URL: postgres.url });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`svc-gateway-postgres: unknown option ${flag}.`);
      expect(run.stderr).toContain('Usage: svc-gateway-postgres');
      expect(run.stderr).not.toContain('s3cret');
    }
    // migrate --connection-string did not fall back to DATABASE_URL (or anything else).
    expect(await tables('svc_gateway')).toBe(0);
  });

  it('a flag without its value is named, exit 2', async () => {
    for (const [args, flag] of [
      [['sql', '--schema'], '--schema'],
      [['migrate', '--url'], '--url'],
      [['migrate', '--url', '--schema', 'acme'], '--url'],
    ] as const) {
      const run = await cli([...args], { DATABASE_URL: postgres.url });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`svc-gateway-postgres: ${flag} needs a value`);
    }
    expect(await tables('svc_gateway')).toBe(0);
  });

  it('an unknown command, a stray argument or a bad schema name: exit 2, no password shown', async () => {
    const cases = [
      [['deploy'], 'unknown command deploy'],
      [
        ['migrate', 'postgres://app:s3cret@127.0.0.1/app'],
        'unexpected argument postgres://app:***@',
      ],
      // Not URLs it can read, so not redacted as one: not shown at all.
      [
        ['migrate', 'DATABASE_URL=postgres://app:s3cret@db/app'],
        'unexpected argument that may hold a password (not shown).',
      ],
      [
        ['migrate', 'postgres://app:s3cret#x@db/app'],
        'unexpected argument that may hold a password (not shown).',
      ],
      [
        ['postgres://app:s3cret@db:notaport/app'],
        'unknown command that may hold a password (not shown)',
      ],
      [['sql', '--url', postgres.url], '--url is an option of migrate'],
      [['sql', '--schema', 'acme-gateway'], '--schema expects letters, digits and _'],
    ] as const;
    for (const [args, message] of cases) {
      const run = await cli([...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(message);
      expect(run.stderr).not.toContain('s3cret');
    }
  });
});

describe('svc-gateway-postgres sql', () => {
  it('--schema NAME and --schema=NAME both print the SQL for that schema', async () => {
    for (const args of [
      ['sql', '--schema', 'acme_gateway'],
      ['sql', '--schema=acme_gateway'],
    ]) {
      const run = await cli(args);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.stdout).toContain('CREATE TABLE "acme_gateway".jobs (');
      expect(run.stdout).not.toContain('"svc_gateway"');
    }
  });

  it('the header comment stays true: its sed example is not rewritten, a line names the schema', async () => {
    const run = await cli(['sql', '--schema', 'acme_gateway']);
    expect(run.stdout).not.toContain('s/"acme_gateway"/');
    expect(run.stdout).toContain("sed 's/svc_gateway/acme_gateway/g' 001_initial.sql");
    const notes = run.stdout.match(/^-- This copy is for the schema "acme_gateway".*$/gm) ?? [];
    expect(notes).toHaveLength(3); // one per migration file
    // Outside comments, no statement names the placeholder.
    const code = run.stdout
      .split('\n')
      .map((line) => line.replace(/--.*$/, ''))
      .join('\n');
    expect(code).not.toMatch(/\bsvc_gateway\b/);
  });

  it('its output applies as it is, and migrate then finds the schema up to date', async () => {
    const sql = await cli(['sql', '--schema=by_hand']);
    expect(sql.code).toBe(0);
    await client.query(`BEGIN; ${sql.stdout} COMMIT;`);
    const run = await cli(['migrate', '--schema', 'by_hand', '--url', postgres.url]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(`Schema by_hand on ${postgres.url} is up to date.\n`);
  });
});

describe('svc-gateway-postgres migrate', () => {
  it('--url URL and --url=URL migrate that database, then report it up to date', async () => {
    const first = await cli(['migrate', '--schema', 'cli_a', '--url', postgres.url]);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toBe(`Applied migration(s) 1, 2, 3 to schema cli_a on ${postgres.url}.\n`);
    expect(await tables('cli_a')).toBeGreaterThan(0);
    const again = await cli(['migrate', '--schema=cli_a', `--url=${postgres.url}`]);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toBe(`Schema cli_a on ${postgres.url} is up to date.\n`);
  });

  it('DATABASE_URL is the default', async () => {
    const run = await cli(['migrate', '--schema', 'cli_env'], { DATABASE_URL: postgres.url });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('to schema cli_env');
    expect(await tables('cli_env')).toBeGreaterThan(0);
  });

  it('with no --url, DATABASE_URL or PG* variable it says so (exit 2) and connects nowhere', async () => {
    const run = await cli(['migrate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('svc-gateway-postgres: no database given: pass --url');
    expect(run.stderr).not.toContain('ECONNREFUSED');
  });

  it('the PG* variables, as documented for migrate(), are used when set, and named', async () => {
    const run = await cli(['migrate', '--schema', 'cli_pg'], {
      PGHOST: '127.0.0.1',
      PGPORT: String(postgres.port),
      PGUSER: 'postgres',
      PGDATABASE: 'postgres',
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'svc-gateway-postgres: no --url or DATABASE_URL: using PGHOST, PGPORT, PGDATABASE, PGUSER.\n',
    );
    expect(run.stdout).toContain('to schema cli_pg on the database of PGHOST, PGPORT');
    expect(await tables('cli_pg')).toBeGreaterThan(0);
  });

  it('a URL that is not postgres:// is refused by name (exit 2), its password not shown', async () => {
    const cases: [string[], Record<string, string>, string][] = [
      [['--url', 'not-a-url'], {}, '--url is not a postgres:// URL'],
      [['--url='], {}, '--url is not a postgres:// URL'],
      [['--url', 'mysql://app:s3cret@db/app'], {}, '--url is not a postgres:// URL:'],
      // Without a scheme, `app:` reads as one and the password as part of a path.
      [['--url', 'app:s3cret@db:5432/app'], {}, '--url is not a postgres:// URL:'],
      [[], { DATABASE_URL: 'app:s3cret@db:5432/app' }, 'DATABASE_URL is not a postgres:// URL:'],
      [['--url', 'postgres://app:s3cret@db:port/app'], {}, '--url is not a postgres:// URL:'],
      [[], { DATABASE_URL: 'http://app:s3cret@db/app' }, 'DATABASE_URL is not a postgres:// URL'],
    ];
    for (const [args, env, message] of cases) {
      const run = await cli(['migrate', ...args], env);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(`svc-gateway-postgres: ${message}`);
      expect(run.stderr).not.toContain('s3cret');
      expect(run.stderr).not.toContain('ENOTFOUND');
    }
  });

  it('a URL with whitespace around it is refused by name (exit 2), not echoed, and nothing is migrated', async () => {
    // node-postgres read a leading space as part of a path (`getaddrinfo ENOTFOUND base`, exit 1)
    // and a trailing one as part of the database name. Trust authentication: the password is
    // ignored, so a URL that reached the server would migrate.
    const url = postgres.url.replace('postgres@', 'postgres:s3cret@');
    const cases: [string[], Record<string, string>, string][] = [
      [['--url', ` ${url}`], {}, '--url'],
      [['--url', `${url} `], {}, '--url'],
      [[`--url=${url}\t`], {}, '--url'],
      [[], { DATABASE_URL: `${url}\n` }, 'DATABASE_URL'],
      [[], { DATABASE_URL: ` ${url}` }, 'DATABASE_URL'],
    ];
    for (const [args, env, source] of cases) {
      const run = await cli(['migrate', '--schema', 'cli_spaces', ...args], env);
      expect(run.code, JSON.stringify([args, env])).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(
        new RegExp(
          `^svc-gateway-postgres: ${source} starts or ends with whitespace \\(a space, a line break\\): expected postgres://user:password@host:5432/db and nothing else\\.\n\nUsage: `,
        ),
      );
      expect(run.stderr).not.toContain('s3cret');
      expect(run.stderr).not.toContain(String(postgres.port));
    }
    expect(await tables('cli_spaces')).toBe(0);
  });

  it('a database it cannot reach: exit 1, the URL without its password, the reason', async () => {
    const port = await freePort(); // nothing listens there
    const url = `postgres://gateway:s3cret-pass@127.0.0.1:${port}/app`;
    const run = await cli(['migrate', '--url', url]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `svc-gateway-postgres: migrating schema svc_gateway on postgres://gateway:***@127.0.0.1:${port}/app failed: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
  });

  it('a password given as a query parameter (node-postgres reads it) is not shown either', async () => {
    const port = await freePort(); // nothing listens there
    const run = await cli([
      'migrate',
      '--url',
      `postgres://gateway@127.0.0.1:${port}/app?password=s3cret-pass`,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `svc-gateway-postgres: migrating schema svc_gateway on postgres://gateway@127.0.0.1:${port}/app?password=*** failed: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
    // Nor as a stray argument; and a URL that reaches the server is reported the same way.
    const stray = await cli(['migrate', 'postgres://gateway@db/app?password=s3cret-pass']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('unexpected argument postgres://gateway@db/app?password=***.');
    const done = await cli([
      'migrate',
      '--schema',
      'cli_query_pw',
      '--url',
      `${postgres.url}?password=s3cret-pass`,
    ]);
    expect(done).toMatchObject({ code: 0, stderr: '' });
    expect(done.stdout).toBe(
      `Applied migration(s) 1, 2, 3 to schema cli_query_pw on ${postgres.url}?password=***.\n`,
    );
  });

  it('a URL without a host (the form cloud providers document for sockets) migrates, its password not shown', async () => {
    // postgres://user:password@/db?host=/cloudsql/project:region:instance: node-postgres takes the
    // host (a socket folder or an address) from the query; here the test server's address.
    const url = `postgres://postgres:s3cret@/postgres?host=127.0.0.1&port=${postgres.port}`;
    const run = await cli(['migrate', '--schema', 'cli_hostless', '--url', url]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(
      `Applied migration(s) 1, 2, 3 to schema cli_hostless on postgres://postgres:***@/postgres?host=127.0.0.1&port=${postgres.port}.\n`,
    );
    expect(await tables('cli_hostless')).toBeGreaterThan(0);
    // A database it cannot reach, named the same way.
    const port = await freePort(); // nothing listens there
    const unreachable = await cli([
      'migrate',
      '--url',
      `postgres://gateway:s3cret@/app?host=127.0.0.1&port=${port}`,
    ]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toBe(
      `svc-gateway-postgres: migrating schema svc_gateway on postgres://gateway:***@/app?host=127.0.0.1&port=${port} failed: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
    // Nor as a stray argument.
    const stray = await cli(['migrate', url]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('unexpected argument postgres://postgres:***@/postgres?host=');
    expect(stray.stderr).not.toContain('s3cret');
  });
});
