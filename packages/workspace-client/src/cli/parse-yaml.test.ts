import { describe, expect, it } from 'vitest';
import { parseYaml, YAML_LIMITS } from './parse-yaml.ts';

const MiB = 1024 * 1024;

/** CPU time (user + system, ms) `run` takes: not wall time, so other load on the machine does not count. */
function cpuMs(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

describe('parseYaml: limits before any tree is built', () => {
  it.each([
    ['flow sequences', `${'['.repeat(MiB / 2)}${']'.repeat(MiB / 2)}`],
    ['flow mappings', `${'{a: '.repeat(MiB / 8)}1${'}'.repeat(MiB / 8)}`],
    ['compact block sequences', `${'- '.repeat(MiB / 2 - 1)}x\n`],
    [
      'indented block mappings',
      Array.from({ length: 1_400 }, (_, depth) => `${' '.repeat(depth)}k${depth}:`).join('\n'),
    ],
  ])('refuses a 1 MiB-class document nested too deep (%s) at once', (_, text) => {
    let error: unknown;
    const used = cpuMs(() => {
      try {
        parseYaml(text);
      } catch (caught) {
        error = caught;
      }
    });
    expect(String(error)).toContain(`Nested deeper than ${YAML_LIMITS.maxDepth} levels`);
    // Parsing the flow case reached 729 MiB RSS before; the scan stops at level 65.
    expect(used).toBeLessThan(2_000);
  });

  it('refuses a 60 000-key document without the quadratic duplicate check (was 14.4 s of CPU)', () => {
    const text = Array.from({ length: 60_000 }, (_, i) => `key${i}: ${i}`).join('\n');
    let error: unknown;
    const used = cpuMs(() => {
      try {
        parseYaml(text);
      } catch (caught) {
        error = caught;
      }
    });
    expect(String(error)).toContain(`More than ${YAML_LIMITS.maxKeys} keys`);
    expect(used).toBeLessThan(2_000);
  });

  it('refuses more values than maxNodes', () => {
    const text = `[${Array.from({ length: YAML_LIMITS.maxNodes + 1 }, () => '1').join(',')}]`;
    expect(() => parseYaml(text)).toThrow(`More than ${YAML_LIMITS.maxNodes} values`);
  });

  it('parses a document at the key limit quickly, and still refuses duplicate keys', () => {
    const keys = Array.from({ length: YAML_LIMITS.maxKeys }, (_, i) => `key${i}: ${i}`);
    let parsed: unknown;
    const used = cpuMs(() => {
      parsed = parseYaml(keys.join('\n'));
    });
    expect(Object.keys(parsed as object)).toHaveLength(YAML_LIMITS.maxKeys);
    expect(used).toBeLessThan(2_000);
    expect(() => parseYaml('a: 1\nb: 2\na: 3\n')).toThrow('"a" appears twice');
    expect(() => parseYaml('outer:\n  x: 1\n  x: 2\n')).toThrow('"x" appears twice');
  });

  it('accepts nesting up to the limit, block scalars and multi-line plain scalars', () => {
    const depth = 40;
    const nested = Array.from({ length: depth }, (_, level) => `${'  '.repeat(level)}k${level}:`);
    const text = `${nested.join('\n')} leaf\n`;
    let value = parseYaml(text) as Record<string, unknown>;
    for (let level = 0; level < depth - 1; level++) value = value[`k${level}`] as typeof value;
    expect(value).toEqual({ [`k${depth - 1}`]: 'leaf' });
    expect(
      parseYaml(
        'name: Pricing\ninstructions: |\n  Quote the list price.\n    Indented line.\nnote: one\n  two\nlist:\n  - - a\n    - b\n',
      ),
    ).toEqual({
      name: 'Pricing',
      instructions: 'Quote the list price.\n  Indented line.\n',
      note: 'one two',
      list: [['a', 'b']],
    });
  });

  it('bounds alias expansion (the library’s maxAliasCount)', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 8; i++) {
      lines.push(
        `${'b'.repeat(i + 1)}: &${'b'.repeat(i + 1)} [${Array(10)
          .fill(`*${i === 0 ? 'a' : 'b'.repeat(i)}`)
          .join(', ')}]`,
      );
    }
    expect(() => parseYaml(lines.join('\n'))).toThrow(/alias/i);
  });
});
