import pg from 'pg';

/**
 * A pool for a store under test whose statements are counted (`statements`): what a change to the
 * store's round trips is measured by. `end` closes the pool under it.
 */
export function countedPool(url: string): {
  statements: number;
  query(config: { text: string; values?: readonly unknown[] }): Promise<pg.QueryResult>;
  end(): Promise<void>;
  readonly options: pg.PoolConfig;
} {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const counted = {
    statements: 0,
    query: (config: { text: string; values?: readonly unknown[] }) => {
      counted.statements += 1;
      return pool.query(config as pg.QueryConfig);
    },
    end: () => pool.end(),
    options: pool.options,
  };
  return counted;
}
