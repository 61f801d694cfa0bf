#!/usr/bin/env node
// svc-gateway-postgres: applies or prints the package's migrations.
//   svc-gateway-postgres migrate [--schema NAME] [--url postgres://…]   (default: $DATABASE_URL)
//   svc-gateway-postgres sql [--schema NAME]                            (prints the SQL for psql)
// Exit codes: 0 done (or --help), 1 the database refused or failed, 2 a wrong invocation (unknown
// command or flag, a flag without its value, no database given, a URL that is not postgres:// or
// has whitespace around it).
// No message carries a password: URLs are shown as redactPostgresUrl shows them.
import { parseArgs } from 'node:util';
import { isStoreUnavailableError } from '@svc/gateway-kit/store';
import { migrate, migrations } from './migrate.ts';
import {
  isConnectionString,
  parseConnectionUrl,
  quoteSchema,
  redactPostgresUrl,
} from './postgres-connection.ts';

const USAGE =
  'Usage: svc-gateway-postgres migrate [--schema NAME] [--url postgres://…]\n' +
  '       svc-gateway-postgres sql [--schema NAME]   (the SQL, for psql --single-transaction)\n' +
  '\n' +
  '  --schema NAME  the schema holding the tables (default svc_gateway)\n' +
  '  --url URL      the database (default $DATABASE_URL; without either, the PG* environment\n' +
  '                 variables PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, if any is set)\n' +
  '  -h, --help     this text\n';

/** The node-postgres environment variables that name a database (and its login). */
const PG_VARIABLES = ['PGHOST', 'PGPORT', 'PGDATABASE', 'PGUSER', 'PGPASSWORD'] as const;

/** A wrong invocation: the message, then the usage, on stderr; exit code 2. */
class UsageError extends Error {}

/**
 * An argument as a message may show it: a URL's password replaced by `***`, and an argument that
 * is no URL but may still carry a login (`user:pass@host`, a pasted `DATABASE_URL=…`, a password
 * with an unencoded `#`) not shown at all.
 */
function shown(text: string): string {
  const url = parseConnectionUrl(text);
  if (url) return url.password || url.searchParams.has('password') ? redactPostgresUrl(text) : text;
  return /@|password/i.test(text) ? 'that may hold a password (not shown)' : text;
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        schema: { type: 'string' },
        url: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    // parseArgs names the flag in quotes ('--shema', '-h, --help'); only the flag, never its value.
    const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
    const flag = /--[\w-]+/.exec(quoted)?.[0] ?? /-\w/.exec(quoted)?.[0];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag)
      throw new UsageError(`unknown option ${flag}.`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag && /does not take/.test(message))
      throw new UsageError(`${flag} takes no value.`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag)
      throw new UsageError(
        `${flag} needs a value (${flag} VALUE or ${flag}=VALUE; a value starting with - only as ${flag}=VALUE).`,
      );
    throw new UsageError(message);
  }
}

/**
 * The database to migrate: `{ url, target, passwords }` (the URL's passwords, to scrub from the
 * driver's messages), or `{ target }` for the PG* variables.
 */
function database(url: string | undefined): {
  url?: string;
  target: string;
  passwords?: readonly string[];
} {
  let source = '--url';
  if (url === undefined && process.env.DATABASE_URL) {
    url = process.env.DATABASE_URL;
    source = 'DATABASE_URL';
  }
  if (url === undefined) {
    const set = PG_VARIABLES.filter((name) => process.env[name]);
    if (set.length === 0)
      throw new UsageError(
        'no database given: pass --url postgres://user:password@host:5432/db, or set DATABASE_URL ' +
          `(or the PG* environment variables ${PG_VARIABLES.join(', ')}).`,
      );
    const target = `the database of ${set.join(', ')}`;
    process.stderr.write(
      `svc-gateway-postgres: no --url or DATABASE_URL: using ${set.join(', ')}.\n`,
    );
    return { target };
  }
  // Refused, not trimmed: the stores refuse the same string (pg would read a leading space as part
  // of a path and connect to the host `base`, a trailing one as part of the database name).
  if (url.trim() !== url)
    throw new UsageError(
      `${source} starts or ends with whitespace (a space, a line break): expected postgres://user:password@host:5432/db and nothing else.`,
    );
  // As node-postgres parses it: `postgres://user:password@/db?host=/cloudsql/…` (no host before
  // the path) is a URL it connects with.
  const parsed = parseConnectionUrl(url);
  // Not echoed: without a postgres scheme `user:password@host` parses as scheme and path, so
  // there is no password for redactPostgresUrl to hide.
  if (
    (parsed?.protocol !== 'postgres:' && parsed?.protocol !== 'postgresql:') ||
    !isConnectionString(url)
  )
    throw new UsageError(
      `${source} is not a postgres:// URL: expected postgres://user:password@host:5432/db.`,
    );
  const passwords = [parsed.password, parsed.searchParams.get('password') ?? ''];
  return { url, target: redactPostgresUrl(url), passwords };
}

/** The driver's message, with the password scrubbed should it ever carry one. */
function reason(error: unknown, passwords: string[]): string {
  // migrate()'s "cannot reach" names the database, which the CLI's message names already.
  if (isStoreUnavailableError(error) && error.cause !== undefined) error = error.cause;
  let text =
    error instanceof Error
      ? error.message ||
        // Refused on every address (::1 and 127.0.0.1): an AggregateError without a message.
        ((error as { errors?: unknown[] }).errors ?? [])
          .map((inner) => (inner instanceof Error ? inner.message : String(inner)))
          .join('; ') ||
        String((error as { code?: unknown }).code ?? error.name)
      : String(error);
  for (const password of passwords) if (password) text = text.replaceAll(password, '***');
  return text;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [command, ...rest] = positionals;
  if (command === undefined) throw new UsageError('which command: migrate or sql?');
  if (command !== 'migrate' && command !== 'sql')
    throw new UsageError(`unknown command ${shown(command)}: expected migrate or sql.`);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${shown(rest[0]!)}.`);
  const schema = values.schema ?? 'svc_gateway';
  try {
    quoteSchema(schema, 'svc-gateway-postgres');
  } catch {
    throw new UsageError(
      '--schema expects letters, digits and _ (at most 63, not starting with a digit).',
    );
  }
  if (command === 'sql') {
    if (values.url !== undefined) throw new UsageError('--url is an option of migrate, not sql.');
    for (const migration of migrations(schema)) process.stdout.write(`${migration.sql}\n`);
    return 0;
  }
  const { url, target, passwords: urlPasswords = [] } = database(values.url);
  let applied: number[];
  try {
    applied = await migrate({ schema, ...(url ? { connectionString: url } : {}) });
  } catch (error) {
    const passwords = [...urlPasswords, process.env.PGPASSWORD ?? ''];
    const decoded = passwords.map((password) => {
      try {
        return decodeURIComponent(password);
      } catch {
        return password;
      }
    });
    process.stderr.write(
      `svc-gateway-postgres: migrating schema ${schema} on ${target} failed: ${reason(error, [...passwords, ...decoded])}\n`,
    );
    return 1;
  }
  process.stdout.write(
    applied.length === 0
      ? `Schema ${schema} on ${target} is up to date.\n`
      : `Applied migration(s) ${applied.join(', ')} to schema ${schema} on ${target}.\n`,
  );
  return 0;
}

// `svc-gateway-postgres sql | head`: a reader that stops early is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});
try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  // A wrong invocation: 2 with the usage; anything else (a migrations folder missing): 1.
  const usage = error instanceof UsageError;
  process.stderr.write(`svc-gateway-postgres: ${reason(error, [])}\n${usage ? `\n${USAGE}` : ''}`);
  process.exitCode = usage ? 2 : 1;
}
