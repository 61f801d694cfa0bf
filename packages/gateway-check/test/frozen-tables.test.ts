import { describe, expect, it } from 'vitest';
import { formatCheck, RULES } from '../src/index.ts';

// RULES is read by the checker's own messages: a caller changing it (by mistake, or a plugin)
// would change every report. It is frozen, entries included. Test files are ES modules, so
// strict mode: an assignment to a frozen object throws a TypeError.

const failedAuthCheck = {
  id: 'auth-bearer:invoke:wrong-token',
  rule: 'auth-bearer',
  title: 'POST /v1/invoke with a wrong token answers 401',
  status: 'failed',
  message: 'answered 200, expected 401',
  durationMs: 1,
} as const;

describe('RULES', () => {
  it('refuses changes to an entry, a new entry and a deleted entry with a TypeError', () => {
    const rules = RULES as unknown as Record<string, { summary: string; contract: string }>;
    expect(() => {
      rules['auth-bearer']!.contract = 'nowhere';
    }).toThrow(TypeError);
    expect(() => {
      rules['auth-bearer'] = { summary: 'anything goes', contract: 'nowhere' };
    }).toThrow(TypeError);
    expect(() => {
      rules['my-rule'] = { summary: 'mine', contract: 'nowhere' };
    }).toThrow(TypeError);
    expect(() => {
      delete rules['error-envelope'];
    }).toThrow(TypeError);
    expect(Object.isFrozen(RULES)).toBe(true);
    expect(Object.values(RULES).every((info) => Object.isFrozen(info))).toBe(true);
  });

  it('a failed attempt leaves the reports as they were', () => {
    const rules = RULES as unknown as Record<string, { contract: string }>;
    try {
      rules['auth-bearer']!.contract = 'nowhere';
    } catch {}
    expect(RULES['auth-bearer'].contract).toBe('Authentication 1; Errors 3');
    expect(formatCheck(failedAuthCheck)).toContain(
      '[rule auth-bearer: Authentication 1; Errors 3]',
    );
  });
});
