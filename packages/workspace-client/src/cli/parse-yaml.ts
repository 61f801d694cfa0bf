import { CST, isScalar, Lexer, parseDocument, visit } from 'yaml';

/**
 * What one YAML file may hold, checked on the `yaml` library's own tokens before a document or
 * an object is built: nesting depth, mapping keys and nodes (scalars, collections, items). A 1 MiB
 * file otherwise reaches hundreds of MiB (deep nesting) or seconds of CPU (tens of thousands of
 * keys) before it is refused.
 */
export const YAML_LIMITS: {
  readonly maxDepth: 64;
  readonly maxKeys: 10_000;
  readonly maxNodes: 100_000;
  readonly maxAliasCount: 100;
} = { maxDepth: 64, maxKeys: 10_000, maxNodes: 100_000, maxAliasCount: 100 };

/**
 * Scans the tokens of `text` (the library's lexer: no tree is built) and names the first limit of
 * {@link YAML_LIMITS} it exceeds. Depth is counted from above: open block indentation levels,
 * plus the indicators (`-`, `?`, `:`) of the current line, plus open flow collections.
 */
function overLimit(text: string): string | undefined {
  const indents: number[] = [];
  let flow = 0;
  let indent = 0;
  let lineIndicators = 0;
  let atLineStart = true;
  let scalarSource = false;
  let keys = 0;
  let nodes = 0;
  const content = (): void => {
    if (atLineStart && flow === 0) {
      while (indents.length > 0 && indents[indents.length - 1]! >= indent) indents.pop();
      indents.push(indent);
    }
    atLineStart = false;
  };
  const newLine = (): void => {
    atLineStart = true;
    indent = 0;
    lineIndicators = 0;
  };
  for (const token of new Lexer().lex(text)) {
    if (scalarSource) {
      // The source of the scalar announced by the previous token; a block scalar ends its line.
      scalarSource = false;
      if (token.endsWith('\n')) newLine();
      continue;
    }
    switch (CST.tokenType(token)) {
      case 'scalar':
        content();
        nodes += 1;
        scalarSource = true;
        break;
      case 'newline':
        newLine();
        break;
      case 'space':
        if (atLineStart) indent = token.length;
        break;
      case 'map-value-ind':
        keys += 1;
        content();
        lineIndicators += 1;
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
        content();
        nodes += 1;
        lineIndicators += 1;
        break;
      case 'flow-map-start':
      case 'flow-seq-start':
        content();
        nodes += 1;
        flow += 1;
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        flow = Math.max(0, flow - 1);
        break;
      case 'alias':
      case 'anchor':
      case 'tag':
        content();
        break;
      default:
        break;
    }
    if (indents.length + lineIndicators + flow > YAML_LIMITS.maxDepth) {
      return `Nested deeper than ${YAML_LIMITS.maxDepth} levels`;
    }
    if (keys > YAML_LIMITS.maxKeys) return `More than ${YAML_LIMITS.maxKeys} keys`;
    if (nodes > YAML_LIMITS.maxNodes) return `More than ${YAML_LIMITS.maxNodes} values`;
  }
  return undefined;
}

/**
 * Parses one YAML document within {@link YAML_LIMITS}: refused before parsing when over them;
 * duplicate keys refused (checked in one pass, not pairwise); aliases expanded at most
 * `maxAliasCount` times. Throws an `Error` whose message names the problem.
 */
export function parseYaml(text: string): unknown {
  const over = overLimit(text);
  if (over !== undefined) throw new Error(over);
  const document = parseDocument(text, { uniqueKeys: false, prettyErrors: true });
  const [first] = document.errors;
  if (first !== undefined) throw new Error(first.message.split('\n')[0]);
  let duplicate: string | undefined;
  visit(document, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const { key } of map.items) {
        const name = isScalar(key) ? String(key.value) : JSON.stringify(key);
        if (seen.has(name)) {
          duplicate = name;
          return visit.BREAK;
        }
        seen.add(name);
      }
      return undefined;
    },
  });
  if (duplicate !== undefined) {
    throw new Error(`Map keys must be unique: "${duplicate.slice(0, 64)}" appears twice`);
  }
  return document.toJS({ maxAliasCount: YAML_LIMITS.maxAliasCount });
}
