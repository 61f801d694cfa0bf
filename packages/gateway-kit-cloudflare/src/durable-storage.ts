/** A value SQLite hands back or takes as a binding. */
export type SqlValue = string | number | null | ArrayBuffer;

/**
 * The part of a Durable Object's `ctx.storage.sql` cursor the stores use (workerd's
 * `SqlStorageCursor`), spelled out so that this package's types need no `@cloudflare/workers-types`.
 */
export interface SqlCursor<Row> extends Iterable<Row> {
  toArray(): Row[];
  one(): Row;
}

/** `ctx.storage.sql` of a SQLite-backed Durable Object: synchronous statements. */
export interface SqlStorage {
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
  readonly sql: SqlStorage;
  transactionSync<T>(body: () => T): T;
}
