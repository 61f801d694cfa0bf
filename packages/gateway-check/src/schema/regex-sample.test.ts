import { describe, expect, it } from 'vitest';
import { samplePattern } from './regex-sample.ts';

describe('samplePattern', () => {
  it.each([
    '^acc_\\d+$',
    '^ord_\\d+$',
    '^cus_[0-9]{3,6}$',
    '^[A-Z]{2}-\\w{4}$',
    '^(?:eu|us)-[a-z]+$',
    '^(?<year>\\d{4})-(0[1-9]|1[0-2])$',
    '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$',
    'abc',
    '^\\p{Lu}\\p{Ll}+$',
    '^x{2}y?z*$',
  ])('generates a string matching %s', (pattern) => {
    const sample = samplePattern(pattern);
    if (!('value' in sample)) throw new Error(sample.skip);
    expect(sample.value).toMatch(new RegExp(pattern, 'u'));
  });

  it.each([
    ['^(?=.*\\d).+$', 'lookarounds'],
    ['^(a)\\1$', 'is not generated'],
    ['(', 'not an ECMA-262 regular expression'],
    ['^a{1000}$', 'too long'],
  ])('skips %s, saying why', (pattern, why) => {
    const sample = samplePattern(pattern);
    expect('skip' in sample && sample.skip).toContain(why);
  });
});
