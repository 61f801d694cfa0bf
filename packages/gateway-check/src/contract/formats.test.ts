import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { DateTimeSchema } from './formats.ts';

describe('DateTimeSchema', () => {
  it.each([
    '2026-11-22T10:00:00Z',
    '2026-11-22t10:00:00.123456z',
    '2026-11-22T23:59:59-23:59',
    '2028-02-29T10:00:00Z',
    '2000-02-29T10:00:00+01:00',
  ])('accepts %s', (value) => {
    expect(v.is(DateTimeSchema, value)).toBe(true);
  });

  it.each([
    ['no zone', '2026-11-22T10:00:00'],
    ['no seconds', '2026-11-22T10:00Z'],
    ['month 13', '2026-13-01T10:00:00Z'],
    ['February 30', '2026-02-30T10:00:00Z'],
    ['April 31', '2026-04-31T10:00:00Z'],
    ['February 29 of a common year', '2027-02-29T10:00:00Z'],
    ['February 29 of a century that is not a leap year', '2100-02-29T10:00:00Z'],
    ['hour 24', '2026-11-22T24:00:00Z'],
    ['a leap second', '2026-12-31T23:59:60Z'],
    ['an offset of 24 hours', '2026-11-22T10:00:00+24:00'],
  ])('refuses %s', (_, value) => {
    expect(v.is(DateTimeSchema, value)).toBe(false);
  });
});
