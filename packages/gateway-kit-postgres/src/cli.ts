#!/usr/bin/env node
// svc-gateway-postgres: applies or prints the package's migrations.
//   svc-gateway-postgres migrate [--schema NAME] [--url postgres://…]   (default: $DATABASE_URL)
//   svc-gateway-postgres sql [--schema NAME]                            (prints the SQL for psql)
import { migrate, migrations } from './migrate.ts';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
};
const command = args[0];
const schema = option('--schema') ?? 'svc_gateway';
try {
  if (command === 'migrate') {
    const url = option('--url') ?? process.env.DATABASE_URL;
    const applied = await migrate({ schema, ...(url ? { connectionString: url } : {}) });
    console.log(
      applied.length === 0
        ? `Schema ${schema} is up to date.`
        : `Applied migration(s) ${applied.join(', ')} to schema ${schema}.`,
    );
  } else if (command === 'sql') {
    for (const migration of migrations(schema)) process.stdout.write(`${migration.sql}\n`);
  } else {
    console.error(
      'Usage: svc-gateway-postgres migrate [--schema NAME] [--url URL]\n' +
        '       svc-gateway-postgres sql [--schema NAME]   (the SQL, for psql --single-transaction)',
    );
    process.exitCode = 2;
  }
} catch (error) {
  // The driver's messages never carry the password; the URL is not echoed.
  console.error(`svc-gateway-postgres: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
