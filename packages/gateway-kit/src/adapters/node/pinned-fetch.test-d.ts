import { describe, expectTypeOf, it } from 'vitest';
import type { CallbackDeliverySettings } from '../../callbacks/deliver-callback.ts';
import { createPinnedFetch } from './pinned-fetch.ts';

describe('createPinnedFetch types', () => {
  it('is a fetch the callback settings accept', () => {
    expectTypeOf(createPinnedFetch()).toEqualTypeOf<typeof fetch>();
    expectTypeOf(createPinnedFetch({ urlPolicy: { allowInsecureLoopback: true } })).toExtend<
      NonNullable<CallbackDeliverySettings['fetch']>
    >();
  });

  it('takes a resolver with the ResolveHost signature', () => {
    expectTypeOf(createPinnedFetch)
      .parameter(0)
      .exclude<undefined>()
      .toHaveProperty('resolveHost')
      .toEqualTypeOf<((hostname: string) => Promise<readonly string[]>) | undefined>();
  });
});
