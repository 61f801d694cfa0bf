import { migrate, PostgresJobStore, PostgresRecordStore } from '@svc/gateway-kit-postgres';

/**
 * The demo's stores on PostgreSQL (DATABASE_URL): applies the package's migrations (idempotent,
 * safe from several instances at once) into DATABASE_SCHEMA (default `svc_gateway`), then opens
 * the job and record stores. Exits with a one-line message (never the password) when the
 * database cannot be reached.
 */
export async function postgresStores(connectionString: string) {
  const schema = process.env.DATABASE_SCHEMA?.trim() || 'svc_gateway';
  try {
    await migrate({ connectionString, schema });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`Cannot prepare PostgreSQL (DATABASE_URL, schema ${schema}): ${reason}`);
    process.exit(1);
  }
  return {
    jobStore: new PostgresJobStore({ connectionString, schema }),
    recordStore: new PostgresRecordStore({ connectionString, schema }),
  };
}
