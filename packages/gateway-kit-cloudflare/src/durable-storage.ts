/** A value SQLite hands back or takes as a binding. */
export type SqlValue = string | number | null | ArrayBuffer;

/**
 * The part of a Durable Object's `ctx.storage.sql` cursor the stores use (workerd's
 * `SqlStorageCursor`), spelled out so that this package's types need no `@cloudflare/workers-types`.
 */
export interface SqlCursor<Row> extends Iterable<Row> {
  /** Every row the statement returned. */
  toArray(): Row[];
  /** The one row the statement returned (workerd throws if there is not exactly one). */
  one(): Row;
}

/** `ctx.storage.sql` of a SQLite-backed Durable Object: synchronous statements. */
export interface SqlStorage {
  /** Runs one statement with `?` bindings, at once, and returns its rows. */
  exec<Row extends Record<string, SqlValue>>(
    query: string,
    ...bindings: SqlValue[]
  ): SqlCursor<Row>;
}

/**
 * The part of a SQLite-backed Durable Object's storage (`ctx.storage`) the stores use. Every
 * statement is synchronous: a store method runs start to end in one turn of the object's event
 * loop, so no other request interleaves with it, and `transactionSync` makes its writes atomic.
 *
 * @example
 * class MyObject extends DurableObject {
 *   jobs = new DurableJobStore(this.ctx.storage);
 * }
 */
export interface DurableStorage {
  /** The object's SQLite database. */
  readonly sql: SqlStorage;
  /** Runs `body` in one transaction: all its writes, or none if it throws. */
  transactionSync<T>(body: () => T): T;
}
