/** How a snippet is exercised (see README.md of this package). */
export type SnippetMode = 'run' | 'typecheck-only';

export interface Snippet {
  /** Markdown file the block comes from, as given to `extractSnippets`. */
  readonly source: string;
  /** 1-based line of the block's first code line in the Markdown file. */
  readonly line: number;
  readonly mode: SnippetMode;
  /** `ts` for ```ts / ```typescript / ```mts blocks, `js` for ```js / ```javascript / ```mjs. */
  readonly lang: 'ts' | 'js';
  /**
   * File name the block declares on its first line (`// actions.ts`), so that later blocks of the
   * same document can import it (`import { x } from './actions.ts'`).
   */
  readonly fileName?: string;
  readonly code: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/;
// `<!-- snippet: typecheck-only -->`, optionally with a reason: `<!-- snippet: typecheck-only: needs Redis -->`.
const MARKER = /^\s*<!--\s*snippet:\s*([\w-]+)(?:\s*:[^>]*)?\s*-->\s*$/;
const TS_LANGS = new Set(['ts', 'typescript', 'mts']);
const JS_LANGS = new Set(['js', 'javascript', 'mjs']);
const FILE_NAME = /^\/\/\s*([\w.-]+\.(?:ts|mts|js|mjs))(?:\s|$)/;

/**
 * Extracts the TypeScript and JavaScript blocks (```ts / ```typescript / ```js) of a Markdown
 * document. An HTML comment
 * `<!-- snippet: typecheck-only -->` on the line right before a block (blank lines allowed)
 * changes its mode; any other marker value is an error, so a typo cannot silently skip a block.
 */
export function extractSnippets(markdown: string, source: string): Snippet[] {
  const lines = markdown.split(/\r?\n/);
  const snippets: Snippet[] = [];
  let pendingMarker: { mode: string; line: number } | undefined;
  for (let i = 0; i < lines.length; i += 1) {
    const text = lines[i] ?? '';
    const marker = MARKER.exec(text);
    if (marker) {
      pendingMarker = { mode: marker[1]!, line: i + 1 };
      continue;
    }
    const fence = FENCE.exec(text);
    if (!fence) {
      if (text.trim() !== '') pendingMarker = undefined;
      continue;
    }
    const [, indent = '', ticks = '```', lang = ''] = fence;
    const start = i + 1;
    const closing = new RegExp(`^\\s*\\${ticks[0]}{${ticks.length},}\\s*$`);
    const body: string[] = [];
    for (i += 1; i < lines.length; i += 1) {
      const line = lines[i] ?? '';
      if (closing.test(line)) break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line);
    }
    if (i >= lines.length) throw new Error(`${source}:${start}: unclosed code block`);
    const marked = pendingMarker;
    pendingMarker = undefined;
    const language = lang.toLowerCase();
    if (!TS_LANGS.has(language) && !JS_LANGS.has(language)) continue;
    if (marked && marked.mode !== 'typecheck-only' && marked.mode !== 'run') {
      throw new Error(
        `${source}:${marked.line}: unknown snippet marker "${marked.mode}" (use "typecheck-only" or "run")`,
      );
    }
    const fileName = FILE_NAME.exec(body[0] ?? '')?.[1];
    snippets.push({
      source,
      line: start + 1,
      mode: (marked?.mode as SnippetMode | undefined) ?? 'run',
      lang: TS_LANGS.has(language) ? 'ts' : 'js',
      ...(fileName ? { fileName } : {}),
      code: `${body.join('\n')}\n`,
    });
  }
  return snippets;
}
