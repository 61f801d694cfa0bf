/**
 * The shape budget of JSON: how many nodes (objects, arrays and object members) a value holds.
 * Bytes alone do not bound memory: 64 KiB of `{},{},…` parses into 21 000 objects that take 20×
 * their text on a JavaScript heap. Counting nodes bounds what parsing can build; array items that
 * are not objects or arrays are not counted (they cost about their text).
 */

/**
 * Nodes in JSON text, counted without parsing it: `{`, `[` and `:` outside strings. Returns
 * `limit + 1` when the text holds more than `limit` nodes; otherwise a count between the true one
 * and `limit`. A text no longer than `limit` costs nothing (its length bounds its nodes); a longer
 * one costs three native `indexOf` scans that count brackets and colons inside strings too; only
 * text with more of them than `limit` is walked, and counted exactly.
 *
 * @example
 * jsonTextNodes('{"a":[{}]}', 5); // 4
 * jsonTextNodes('{"a":"{}"}', 5); // 3: an upper bound, it is 2
 */
export function jsonTextNodes(text: string, limit: number): number {
  // Every node takes at least one character: a text no longer than the limit cannot pass it.
  if (text.length <= limit) return text.length;
  const rough = roughCount(text, limit);
  return rough <= limit ? rough : exactCount(text, limit);
}

/** An upper bound: every `{`, `[` and `:`, strings included (stops past `limit`). */
function roughCount(text: string, limit: number): number {
  let count = 0;
  for (const mark of ['{', '[', ':']) {
    for (let at = text.indexOf(mark); at !== -1; at = text.indexOf(mark, at + 1)) {
      count += 1;
      if (count > limit) return count;
    }
  }
  return count;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const COLON = 0x3a;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** The exact count, skipping strings (stops past `limit`). */
function exactCount(text: string, limit: number): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      // Jump to the closing quote: the next one not escaped by an odd run of backslashes.
      for (i = text.indexOf('"', i + 1); i !== -1; i = text.indexOf('"', i + 1)) {
        let slashes = 0;
        while (text.charCodeAt(i - 1 - slashes) === BACKSLASH) slashes += 1;
        if (slashes % 2 === 0) break;
      }
      if (i === -1) return count; // unterminated: JSON.parse refuses it
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET || code === COLON) {
      count += 1;
      if (count > limit) return count;
    }
  }
  return count;
}

/**
 * Whether JSON text nests deeper than `maxDepth` (brackets outside strings), without parsing it:
 * for a text refused unparsed, so that it gets the same answer as a parsed one would.
 *
 * @example
 * jsonTextTooDeep('[[[]]]', 2); // true
 */
export function jsonTextTooDeep(text: string, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      for (i = text.indexOf('"', i + 1); i !== -1; i = text.indexOf('"', i + 1)) {
        let slashes = 0;
        while (text.charCodeAt(i - 1 - slashes) === BACKSLASH) slashes += 1;
        if (slashes % 2 === 0) break;
      }
      if (i === -1) return false;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}

/**
 * Nodes of a parsed JSON value (objects, arrays and object members), walked with an early exit:
 * returns `limit + 1` as soon as the count passes `limit`.
 *
 * @example
 * jsonValueNodes({ a: [{}] }, 100); // 4
 */
export function jsonValueNodes(value: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    count += 1;
    if (count > limit) return count;
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === 'object' && item !== null) stack.push(item);
      continue;
    }
    // for…in allocates no key array; parsed JSON has no inherited enumerable keys.
    for (const key in node) {
      count += 1;
      if (count > limit) return count;
      const item = (node as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) stack.push(item);
    }
  }
  return count;
}
