import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// The published entry points as a user's tsc and node see them: what the declarations promise as
// values must be there at run time, in ESM and CJS (an `export type` of a class in src/index.ts
// still came out as a value export of the class in the bundled declarations, so
// `import { RedisCallbackOutbox }` type-checked and then failed: "does not provide an export
// named"). Reads the built dist/ (`pnpm build` first; turbo's test task builds).
const dist = new URL('../dist/', import.meta.url);

/** Names a bundled declaration file exports as values (classes, functions, consts), not types. */
function valueExports(declarations: string): string[] {
  const names = new Set<string>();
  // `export { A, B as C, type D };` and `export { A } from '…';` (`export type { … }` holds types).
  for (const [, list] of declarations.matchAll(/^export \{([^}]*)\}(?: from '[^']*')?;/gm))
    for (const item of list!.split(',').map((part) => part.trim()))
      if (item && !item.startsWith('type ')) names.add(item.split(/\s+as\s+/).at(-1)!);
  for (const [, name] of declarations.matchAll(
    /^export declare (?:abstract )?(?:class|function|const|let|var|enum) (\w+)/gm,
  ))
    names.add(name!);
  return [...names].sort();
}

describe('every value the declarations export is exported at run time', () => {
  it.each([
    ['ESM', 'index.d.ts', () => import(new URL('index.js', dist).href)],
    [
      'CJS',
      'index.d.cts',
      async () => createRequire(import.meta.url)(new URL('index.cjs', dist).pathname),
    ],
  ])('%s: dist/%s against the module node loads', async (_format, file, load) => {
    const declared = new URL(file, dist);
    if (!existsSync(declared))
      throw new Error(`${declared.pathname} is missing: run pnpm build first`);
    const names = valueExports(readFileSync(declared, 'utf8'));
    expect(names).toContain('RedisJobStore'); // the parsing found the export list
    const module = (await load()) as Record<string, unknown>;
    const runtime = Object.keys(module).filter(
      (name) => name !== 'default' && name !== '__esModule',
    );
    expect(runtime.sort()).toEqual(names);
  });

  it('store.callbackOutbox instanceof RedisCallbackOutbox, imported by name from the ESM build', async () => {
    const { RedisCallbackOutbox, RedisJobStore } = await import(new URL('index.js', dist).href);
    expect(typeof RedisCallbackOutbox).toBe('function');
    const store = new RedisJobStore({
      url: 'redis://127.0.0.1:1',
      sweepIntervalMs: 0,
      onError: () => {},
    });
    expect(store.callbackOutbox).toBeInstanceOf(RedisCallbackOutbox);
    await store.close();
  });
});
