import { describe, expectTypeOf, it } from 'vitest';
import type { GatewayOptions } from '../gateway/create-gateway.ts';
import type { CallbackDispatcherOptions, CallbackFailureReason, CallbackLimits } from './index.ts';

describe('callback limit types', () => {
  it('accepts the limits wherever dispatcher options go, createGateway included', () => {
    expectTypeOf<CallbackDispatcherOptions>().toExtend<CallbackLimits>();
    expectTypeOf<{ maxConcurrentAttempts: 8; circuitCooldownMs: 1_000 }>().toExtend<
      Exclude<GatewayOptions['callbacks'], false | undefined>
    >();
    expectTypeOf<{ maxConcurrentAttempts: '8' }>().not.toExtend<CallbackLimits>();
  });

  it('names the two dispatcher-only failure reasons', () => {
    expectTypeOf<'overflow'>().toExtend<CallbackFailureReason>();
    expectTypeOf<'circuit_open'>().toExtend<CallbackFailureReason>();
  });
});
