import { describe, expect, it } from 'vitest';
import { isSelected } from './select.ts';

describe('isSelected', () => {
  it.each([
    ['auth-bearer:invoke:wrong-token', [], true],
    ['auth-bearer:invoke:wrong-token', ['auth-bearer'], true],
    ['auth-bearer:invoke:wrong-token', ['auth-bearer:invoke'], true],
    ['auth-bearer:invoke:wrong-token', ['auth'], false],
    ['auth-bearer:invoke:wrong-token', ['*:wrong-token'], true],
    ['auth-bearer:invoke:wrong-token', ['job-*', 'auth-bearer:invoke:wrong-token'], true],
    ['job-cancel:generate-report', ['job-*'], true],
    ['job-cancel:generate-report', ['job-resource'], false],
    ['a.b:c', ['a?b*'], false],
  ] as const)('%s with %j → %s', (id, patterns, expected) => {
    expect(isSelected(id, patterns)).toBe(expected);
  });
});
