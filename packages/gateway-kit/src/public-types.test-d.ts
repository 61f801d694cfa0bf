// Type tests of the public entry points, as users import them (the root entry and /callbacks).
import type { Tracer } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  CallbackDispatcherOptions,
  CallbackFailureReason,
  CallbackLimits,
} from './callbacks/index.ts';
import type { GatewayLogger, GatewayOptions, GatewayTracer } from './index.ts';

describe('GatewayLogger', () => {
  it('is satisfied by console and by a pino logger', () => {
    expectTypeOf(console).toExtend<GatewayLogger>();
    expectTypeOf<Logger>().toExtend<GatewayLogger>();
  });

  it('needs only error', () => {
    expectTypeOf({ error: (_message: string) => {} }).toExtend<GatewayLogger>();
    expectTypeOf({ warn: (_message: string) => {} }).not.toExtend<GatewayLogger>();
  });
});

describe('GatewayTracer', () => {
  it('accepts any OpenTelemetry tracer without the core importing @opentelemetry/api', () => {
    expectTypeOf<Tracer>().toExtend<GatewayTracer>();
    expectTypeOf(trace.getTracer('gateway')).toExtend<GatewayOptions['tracer']>();
    expectTypeOf(new BasicTracerProvider().getTracer('gateway')).toExtend<GatewayTracer>();
  });
});

describe('callback limit types', () => {
  it('accepts the limits wherever dispatcher options go, createGateway included', () => {
    expectTypeOf<CallbackDispatcherOptions>().toExtend<CallbackLimits>();
    expectTypeOf<{ maxConcurrentAttempts: 8; circuitCooldownMs: 1_000 }>().toExtend<
      Exclude<GatewayOptions['callbacks'], false | undefined>
    >();
    expectTypeOf<{ maxConcurrentAttempts: '8' }>().not.toExtend<CallbackLimits>();
  });

  it('names the dispatcher-only failure reasons, the outbox ones included', () => {
    expectTypeOf<'overflow'>().toExtend<CallbackFailureReason>();
    expectTypeOf<'circuit_open'>().toExtend<CallbackFailureReason>();
    expectTypeOf<'expired'>().toExtend<CallbackFailureReason>();
  });

  it('takes a principal per delivery and per-principal shares', () => {
    expectTypeOf<{ maxPendingPerPrincipal: 10; maxPendingBytesPerPrincipal: 1_024 }>().toExtend<
      Exclude<GatewayOptions['callbacks'], false | undefined>
    >();
    expectTypeOf<{ maxPendingPerPrincipal: '10' }>().not.toExtend<CallbackLimits>();
  });
});
