import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../test/source-files.ts';

// The core must run wherever `fetch` does (Deno, Bun, workers): runtime specifics belong in
// adapters, the way Hono keeps them.
const root = new URL('.', import.meta.url).pathname;

describe('the gateway core', () => {
  const core = sourceFiles(root).filter((path) => !relative(root, path).startsWith('adapters/'));

  it('has source files to check', () => {
    expect(core.length).toBeGreaterThan(30);
  });

  it('imports no runtime-specific module and uses no Node global', () => {
    const offenders = core.flatMap((path) => {
      // Comments and JSDoc examples may mention process.env; only code counts.
      const code = readFileSync(path, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      const problems = [
        /from ['"]node:/.test(code) && 'imports node:*',
        /from ['"](fs|path|http|https|net|os|crypto|stream|buffer|events|url)['"]/.test(code) &&
          'imports a Node builtin',
        /\brequire\(/.test(code) && 'uses require()',
        /\b(Buffer|process)\.|\b(__dirname|setImmediate)\b/.test(code) && 'uses a Node global',
        /\b(Deno|Bun)\./.test(code) && 'uses a runtime namespace',
      ].filter(Boolean);
      return problems.map((problem) => `${relative(root, path)}: ${problem}`);
    });
    expect(offenders).toEqual([]);
  });
});
