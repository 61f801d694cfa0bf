import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonTextNodes, jsonTextTooDeep, jsonValueNodes } from './json-shape.ts';
import { parseJsonBody } from './parse-json.ts';

describe('JSON shape (nodes: objects, arrays, object members)', () => {
  it('counts the same nodes in the text as in the parsed value, at any limit (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.nat(40), (value, limit) => {
        const text = JSON.stringify(value);
        const nodes = jsonValueNodes(JSON.parse(text), Number.POSITIVE_INFINITY);
        const counted = jsonTextNodes(text, limit);
        // Over the limit exactly when the value is; under it, never below the true count.
        if (nodes > limit) expect(counted).toBe(limit + 1);
        else expect(counted).toBeGreaterThanOrEqual(nodes);
        expect(counted).toBeLessThanOrEqual(limit + 1);
        expect(jsonValueNodes(JSON.parse(text), limit)).toBe(Math.min(nodes, limit + 1));
      }),
    );
  });

  it('skips brackets and colons inside strings, escaped quotes included', () => {
    // 5 nodes, 10 brackets and colons in all: the limit 5 makes it count exactly.
    const text = '{"a:{[":"]}\\"{:","b":[1,{}]}';
    expect(jsonTextNodes(text, 4)).toBe(5);
    expect(jsonTextNodes(text, 5)).toBe(5);
    expect(jsonTextNodes(text, 20)).toBe(10);
    // Up to the limit in length, the length bounds the count: nothing is scanned.
    expect(jsonTextNodes(text, 100)).toBe(text.length);
    expect(jsonTextNodes('["\\\\",{},"["]', 1)).toBe(2);
  });

  it('a body over maxNodes that also nests too deep is told too_deep, as a parsed one is', () => {
    const deep = new TextEncoder().encode(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    expect(parseJsonBody(deep, 17_408)).toEqual({ ok: false, problem: 'too_deep' });
    expect(jsonTextTooDeep('["[[[[",[[1]]]', 3)).toBe(false);
    expect(jsonTextTooDeep('["[[[[",[[[1]]]]', 3)).toBe(true);
  });

  it('refuses a body over maxNodes before parsing it', () => {
    const body = new TextEncoder().encode(`[${'{},'.repeat(20_000)}{}]`);
    expect(parseJsonBody(body, 17_408)).toEqual({ ok: false, problem: 'too_many_nodes' });
    expect(parseJsonBody(body, 30_000)).toMatchObject({ ok: true, nodes: 20_002 });
  });
});
