import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { fixtureGateway, lookupAccount } from '../../test/fixture-gateway.ts';
import { defineAction } from '../actions/define-action.ts';
import type { AuthConfig } from '../auth/auth-config.ts';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';
import { createGateway } from './create-gateway.ts';

const base = {
  gateway: { id: 'g', name: 'G' },
  actions: [lookupAccount],
  auth: { tokens: ['t0ken'] },
};

describe('createGateway configuration checks', () => {
  it.each([
    ['missing auth', { ...base, auth: undefined as unknown as AuthConfig }, /auth is undefined/],
    ['an empty token list', { ...base, auth: { tokens: [] } }, /at least one token/],
    ['a blank token', { ...base, auth: { tokens: ['  '] } }, /non-empty/],
    [
      'a duplicate action id',
      { ...base, actions: [lookupAccount, lookupAccount] },
      /Duplicate action id "lookup-account"/,
    ],
    [
      'a duplicate action name',
      {
        ...base,
        actions: [
          lookupAccount,
          defineAction({ ...lookupAccount, id: 'other', name: 'lookupAccount' }),
        ],
      },
      /Duplicate action name/,
    ],
    [
      'a bad action id',
      { ...base, actions: [defineAction({ ...lookupAccount, id: 'has space' })] },
      /id must match/,
    ],
    [
      'an input schema that is not an object',
      {
        ...base,
        actions: [defineAction({ id: 'x', input: v.string() as never, run: () => ({}) })],
      },
      /must describe an object/,
    ],
    [
      'an input schema JSON Schema cannot express',
      {
        ...base,
        actions: [defineAction({ id: 'x', input: v.object({ when: v.date() }), run: () => ({}) })],
      },
      /cannot be expressed as JSON Schema/,
    ],
    ['a version that is not a date', { ...base, version: 'v1' }, /YYYY-MM-DD/],
    [
      'a relative gateway url',
      { ...base, gateway: { id: 'g', name: 'G', url: '/gw' } },
      /absolute http/,
    ],
    ['a basePath with a trailing slash', { ...base, basePath: '/gw/' }, /basePath/],
  ])('throws GatewayConfigError for %s', (_, options, message) => {
    expect(() => createGateway(options as never)).toThrow(GatewayConfigError);
    expect(() => createGateway(options as never)).toThrow(message);
  });

  it('takes the documented id form: letters of either case, digits, dot, underscore, hyphen, ≤ 128', () => {
    const withIds = (...ids: string[]) =>
      createGateway({
        ...base,
        actions: ids.map((id) => defineAction({ id, input: v.object({}), run: () => ({}) })),
      });
    const ids = ['Lookup', 'lookup', '9.x_Y-z', `a${'b'.repeat(127)}`];
    expect(withIds(...ids).manifest.actions.map((action) => action.id)).toEqual(ids);
    for (const refused of ['-lead', '.lead', '_lead', 'a/b', 'ümlaut', `a${'b'.repeat(128)}`])
      expect(() => withIds(refused), refused).toThrow(/id must match/);
  });

  it('never puts a configured token in an error message', () => {
    try {
      createGateway({ ...base, auth: { tokens: ['valid-token', ' spaced-secret '] } });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain('spaced-secret');
    }
  });

  it('builds the manifest once, at creation', () => {
    const gateway = fixtureGateway();
    expect(gateway.manifest.actions.map((action) => action.id)).toEqual([
      'lookup-account',
      'misbehave',
    ]);
    expect(Object.isFrozen(lookupAccount)).toBe(true);
  });
});
