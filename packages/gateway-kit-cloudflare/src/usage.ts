import type { SqlStorage } from './durable-storage.ts';

/** Rows and bytes of a table, as its bounds count them. */
export interface Usage {
  readonly n: number;
  readonly bytes: number;
}

/**
 * Keeps a table's row count and byte total (its `bytes` column, if it has one) in a one-row
 * table maintained by SQLite triggers, so that a bound check is one primary-key read instead of
 * a scan. The triggers run inside the statement that changes the table: the totals commit or roll
 * back with it. Returns the reader.
 *
 * @example
 * const usage = trackUsage(sql, 'gw_jobs', true);
 * if (usage().n >= maxJobs) evict();
 */
export function trackUsage(sql: SqlStorage, table: string, hasBytes: boolean): () => Usage {
  const meta = `${table}_usage`;
  const bytesOf = (row: 'NEW' | 'OLD') => (hasBytes ? `${row}.bytes` : '0');
  sql.exec(
    `CREATE TABLE IF NOT EXISTS ${meta} (id INTEGER PRIMARY KEY CHECK (id = 0),
      n INTEGER NOT NULL, bytes INTEGER NOT NULL)`,
  );
  // Counted once from the table itself when the tracking starts (a table created before it).
  sql.exec(
    `INSERT OR IGNORE INTO ${meta} (id, n, bytes)
     SELECT 0, COUNT(*), ${hasBytes ? 'COALESCE(SUM(bytes), 0)' : '0'} FROM ${table}`,
  );
  sql.exec(
    `CREATE TRIGGER IF NOT EXISTS ${meta}_insert AFTER INSERT ON ${table} BEGIN
       UPDATE ${meta} SET n = n + 1, bytes = bytes + ${bytesOf('NEW')} WHERE id = 0; END`,
  );
  sql.exec(
    `CREATE TRIGGER IF NOT EXISTS ${meta}_delete AFTER DELETE ON ${table} BEGIN
       UPDATE ${meta} SET n = n - 1, bytes = bytes - ${bytesOf('OLD')} WHERE id = 0; END`,
  );
  if (hasBytes) {
    sql.exec(
      `CREATE TRIGGER IF NOT EXISTS ${meta}_update AFTER UPDATE OF bytes ON ${table} BEGIN
         UPDATE ${meta} SET bytes = bytes - OLD.bytes + NEW.bytes WHERE id = 0; END`,
    );
  }
  return () =>
    sql.exec<{ n: number; bytes: number }>(`SELECT n, bytes FROM ${meta} WHERE id = 0`).one();
}
