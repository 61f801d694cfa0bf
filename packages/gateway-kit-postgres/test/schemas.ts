import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../src/index.ts';

/**
 * Fresh migrated schemas on one server: every store under test starts empty.
 *
 * @example
 * const schemas = new Schemas(postgres.url);
 * const schema = await schemas.fresh();
 */
export class Schemas {
  readonly #client: pg.Client;
  #connected: Promise<unknown> | undefined;

  constructor(url: string) {
    this.#client = new pg.Client({ connectionString: url });
    this.#client.on('error', () => {});
  }

  /** A new schema with the package's migrations applied; returns its name. */
  async fresh(prefix = 't'): Promise<string> {
    this.#connected ??= this.#client.connect();
    await this.#connected;
    const schema = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    await migrate({ client: this.#client, schema });
    return schema;
  }

  /** Runs one statement on the test connection (for assertions on the tables). */
  async query<R>(text: string, values: unknown[] = []): Promise<R[]> {
    this.#connected ??= this.#client.connect();
    await this.#connected;
    return (await this.#client.query(text, values)).rows as R[];
  }

  async close(): Promise<void> {
    await this.#client.end().catch(() => {});
  }
}
