import { type Tracer, trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expectTypeOf, it } from 'vitest';
import type { GatewayOptions, GatewayTracer } from '../index.ts';

describe('GatewayTracer', () => {
  it('accepts any OpenTelemetry tracer without the core importing @opentelemetry/api', () => {
    expectTypeOf<Tracer>().toExtend<GatewayTracer>();
    expectTypeOf(trace.getTracer('gateway')).toExtend<GatewayOptions['tracer']>();
    expectTypeOf(new BasicTracerProvider().getTracer('gateway')).toExtend<GatewayTracer>();
  });
});
