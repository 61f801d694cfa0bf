import { expect, it } from 'vitest';
import { isJsonMediaType } from './media-type.ts';

it.each([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'Application/JSON ; charset=utf-8',
  ' application/json',
])('%j is application/json', (value) => {
  expect(isJsonMediaType(value)).toBe(true);
});

it.each([
  null,
  '',
  'text/plain',
  'text/plain; charset=utf-8',
  'text/json',
  'application/problem+json',
  'application/jsonx',
  'application/json-seq',
  'application',
])('%j is not', (value) => {
  expect(isJsonMediaType(value)).toBe(false);
});
