import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built package as a user installs it (the test task builds first): what its declarations
// promise as a value must be there at run time, in both builds.
const dist = (file: string): string => fileURLToPath(new URL(`../dist/${file}`, import.meta.url));

/** The names `export { … }` (not `export type { … }`) lists in a declaration file. */
function declaredValues(file: string): string[] {
  const text = readFileSync(dist(file), 'utf8');
  const names: string[] = [];
  for (const [, list] of text.matchAll(/^export \{([^}]*)\}/gm))
    for (const entry of list!.split(',')) {
      const name = entry
        .trim()
        .split(/\s+as\s+/)
        .pop()!;
      if (name && !name.startsWith('type ')) names.push(name);
    }
  return names.sort();
}

describe('the package exports', () => {
  it('declares PostgresCallbackOutbox as a class value (as it always did)', () => {
    expect(declaredValues('index.d.ts')).toContain('PostgresCallbackOutbox');
    expect(readFileSync(dist('index.d.ts'), 'utf8')).toContain(
      'declare class PostgresCallbackOutbox',
    );
  });

  it('every value the ESM declarations export is exported by the ESM build', async () => {
    const module = (await import(dist('index.js'))) as Record<string, unknown>;
    for (const name of declaredValues('index.d.ts'))
      expect(module[name], `${name} at run time`).toBeDefined();
  });

  it('every value the CommonJS declarations export is exported by the CommonJS build', () => {
    const module = createRequire(import.meta.url)(dist('index.cjs')) as Record<string, unknown>;
    for (const name of declaredValues('index.d.cts'))
      expect(module[name], `${name} at run time`).toBeDefined();
  });

  it('a job store’s callbackOutbox is an instance of the exported PostgresCallbackOutbox', async () => {
    const { PostgresCallbackOutbox, PostgresJobStore } = (await import(dist('index.js'))) as {
      PostgresCallbackOutbox: abstract new (...args: never[]) => unknown;
      PostgresJobStore: new (
        options: object,
      ) => { callbackOutbox: unknown; close(): Promise<void> };
    };
    // Nothing listens on port 9; the constructor connects lazily, and close() ends the pool.
    const store = new PostgresJobStore({
      connectionString: 'postgres://app@127.0.0.1:9/app',
      sweepIntervalMs: 0,
      onError: () => {},
    });
    try {
      expect(store.callbackOutbox).toBeInstanceOf(PostgresCallbackOutbox);
    } finally {
      await store.close();
    }
  });
});

describe('the declarations', () => {
  it('need no @types/pg: they import nothing from pg (pg ships no types of its own)', () => {
    for (const file of ['index.d.ts', 'index.d.cts'])
      expect(readFileSync(dist(file), 'utf8'), file).not.toMatch(/^import [^\n]* from ['"]pg['"]/m);
  });
});
