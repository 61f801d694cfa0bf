import { describe, expect, it } from 'vitest';
import { extractSnippets } from '../src/extract.ts';

const md = [
  '# Title', //                                        1
  '', //                                               2
  '```sh', //                                          3
  'pnpm add x', //                                     4
  '```', //                                            5
  '', //                                               6
  '```ts', //                                          7
  'const a: number = 1;', //                           8
  '```', //                                            9
  '<!-- snippet: typecheck-only -->', //              10
  '', //                                              11
  '```typescript', //                                 12
  'Deno.serve(() => new Response());', //             13
  '````', //                                          14
  '', //                                              15
  '- list:', //                                       16
  '  ```ts', //                                       17
  '  const b = 2;', //                                18
  '  ```', //                                         19
].join('\n');

describe('extractSnippets', () => {
  it('finds the TypeScript blocks with their Markdown line and mode, and ignores other languages', () => {
    expect(extractSnippets(md, 'X.md')).toEqual([
      { source: 'X.md', line: 8, mode: 'run', lang: 'ts', code: 'const a: number = 1;\n' },
      {
        source: 'X.md',
        line: 13,
        mode: 'typecheck-only',
        lang: 'ts',
        code: 'Deno.serve(() => new Response());\n',
      },
      { source: 'X.md', line: 18, mode: 'run', lang: 'ts', code: 'const b = 2;\n' },
    ]);
  });

  it('applies a marker only to the block right after it', () => {
    const text = '<!-- snippet: typecheck-only -->\nSome prose.\n\n```ts\nlet x = 1;\n```\n';
    expect(extractSnippets(text, 'Y.md')[0]?.mode).toBe('run');
  });

  it('refuses an unknown marker instead of silently skipping a block', () => {
    const text = '<!-- snippet: skip -->\n```ts\nlet x = 1;\n```\n';
    expect(() => extractSnippets(text, 'Z.md')).toThrow('Z.md:1: unknown snippet marker "skip"');
  });

  it('reads JavaScript blocks, a file name on the first line and a marker with a reason', () => {
    const text = [
      '<!-- snippet: typecheck-only: needs Redis -->',
      '```js',
      '// server.mjs',
      'console.log(1);',
      '```',
    ].join('\n');
    expect(extractSnippets(text, 'V.md')).toEqual([
      {
        source: 'V.md',
        line: 3,
        mode: 'typecheck-only',
        lang: 'js',
        fileName: 'server.mjs',
        code: '// server.mjs\nconsole.log(1);\n',
      },
    ]);
  });

  it('refuses an unclosed block', () => {
    expect(() => extractSnippets('```ts\nlet x = 1;\n', 'W.md')).toThrow('W.md:1: unclosed');
  });
});
