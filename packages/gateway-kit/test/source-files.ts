import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every source file under `dir` (recursively): `.ts` files that are not tests (`.test.ts`,
 * `.test-d.ts`). Used by the structure tests (layers, Web-standard core).
 *
 * @example
 * sourceFiles(new URL('../src', import.meta.url).pathname);
 */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}
