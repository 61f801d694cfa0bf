import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, parseJsonBody } from './parse-json.ts';

const encode = (text: string) => new TextEncoder().encode(text);

describe('parseJsonBody', () => {
  it('parses any JSON value it is given (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 10 }), (value) => {
        const text = JSON.stringify(value);
        fc.pre(!text.includes('"__proto__"'));
        const result = parseJsonBody(encode(text));
        expect(result).toMatchObject({ ok: true, value: JSON.parse(text) });
      }),
    );
  });

  it('refuses nesting deeper than the limit, without recursion trouble at any depth', () => {
    const at = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(parseJsonBody(encode(at(MAX_JSON_DEPTH))).ok).toBe(true);
    expect(parseJsonBody(encode(at(MAX_JSON_DEPTH + 1)))).toEqual({
      ok: false,
      problem: 'too_deep',
    });
    expect(parseJsonBody(encode(at(100_000)))).toMatchObject({ ok: false });
  });

  it('refuses __proto__ keys however they are spelled', () => {
    expect(parseJsonBody(encode('{"a":{"__proto__":{"x":1}}}'))).toEqual({
      ok: false,
      problem: 'forbidden_key',
    });
    expect(parseJsonBody(encode('{"\\u005f_proto__":1}'))).toEqual({
      ok: false,
      problem: 'forbidden_key',
    });
    expect(parseJsonBody(encode('{"constructor":{"prototype":1}}')).ok).toBe(true);
  });

  it('refuses invalid UTF-8 and invalid JSON', () => {
    expect(parseJsonBody(new Uint8Array([0xc3, 0x28]))).toEqual({
      ok: false,
      problem: 'invalid_json',
    });
    expect(parseJsonBody(encode('{'))).toEqual({ ok: false, problem: 'invalid_json' });
    expect(parseJsonBody(encode(''))).toEqual({ ok: false, problem: 'invalid_json' });
  });
});
