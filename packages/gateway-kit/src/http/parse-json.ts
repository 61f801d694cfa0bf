import { jsonTextNodes, jsonTextTooDeep } from './json-shape.ts';

/** The deepest nesting a request body may have; deeper bodies are refused before validation. */
export const MAX_JSON_DEPTH = 64;

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Why a body could not be used as JSON. */
export type JsonProblem = 'invalid_json' | 'too_deep' | 'forbidden_key';

/**
 * Decodes and parses a JSON body, then refuses bodies nested deeper than {@link MAX_JSON_DEPTH}
 * or carrying a `__proto__` key anywhere: such keys are never legitimate data, and refusing them
 * means no later spread or merge can be turned into prototype pollution. With `maxNodes`, a body
 * holding more objects, arrays and members than that is refused (`too_many_nodes`) *before* it is
 * parsed, so it never takes the memory its parsed form would; `nodes` is its count.
 */
export function parseJsonBody(
  bytes: Uint8Array,
  maxNodes: number = Number.POSITIVE_INFINITY,
):
  | { ok: true; value: unknown; nodes: number }
  | { ok: false; problem: JsonProblem | 'too_many_nodes' } {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false, problem: 'invalid_json' };
  }
  const nodes = jsonTextNodes(text, maxNodes);
  if (nodes > maxNodes) {
    // Refused unparsed: too deep is still told as such, as it would be once parsed.
    return {
      ok: false,
      problem: jsonTextTooDeep(text, MAX_JSON_DEPTH) ? 'too_deep' : 'too_many_nodes',
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'invalid_json' };
  }
  if (cannotOffend(text)) return { ok: true, value, nodes };
  const problem = inspect(value, 0);
  return problem ? { ok: false, problem } : { ok: true, value, nodes };
}

/**
 * True when the text alone proves the rules hold, so the walk can be skipped (the common case):
 * with at most {@link MAX_JSON_DEPTH} opening brackets it cannot nest deeper, and without the
 * letters `__proto__` or a `\u` escape (which could spell them) no key can be `__proto__`.
 */
function cannotOffend(text: string): boolean {
  if (text.includes('__proto__') || text.includes('\\u')) return false;
  // indexOf jumps between brackets natively: far cheaper than visiting every character.
  let openers = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      openers += 1;
      if (openers > MAX_JSON_DEPTH) return false;
    }
  }
  return true;
}

/** Checks an already-parsed value (bodies decoded by a framework) with the same rules. */
export function inspectJsonValue(value: unknown): JsonProblem | undefined {
  return inspect(value, 0);
}

function inspect(value: unknown, depth: number): JsonProblem | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_JSON_DEPTH) return 'too_deep';
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = inspect(item, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  // for…in allocates no key array; JSON.parse objects have no inherited enumerable keys.
  for (const key in value) {
    if (key === '__proto__') return 'forbidden_key';
    const problem = inspect((value as Record<string, unknown>)[key], depth + 1);
    if (problem) return problem;
  }
  return undefined;
}
