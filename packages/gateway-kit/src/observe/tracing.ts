/**
 * The part of an OpenTelemetry `Span` the gateway uses. Typed structurally so that the core needs
 * no import of `@opentelemetry/api`: a span from any OpenTelemetry 1.x tracer fits.
 *
 * @example
 * const span: GatewaySpan = tracer.startSpan('work');
 * span.setAttribute('gateway.action.id', 'lookup-order').end();
 */
export interface GatewaySpan {
  /** Sets one attribute; returns the span. */
  setAttribute(key: string, value: string | number | boolean): GatewaySpan;
  /** Sets the span's status (`code` 2 is OpenTelemetry's `ERROR`); returns the span. */
  setStatus(status: { code: number; message?: string }): GatewaySpan;
  /** Ends the span. */
  end(): void;
}

/**
 * What the gateway passes when it starts a span: `kind` is OpenTelemetry's `SpanKind` (1 server,
 * 2 client, 0 internal) and `attributes` the span's first attributes.
 *
 * @example
 * const options: GatewaySpanOptions = { kind: 1, attributes: { 'http.request.method': 'POST' } };
 */
export interface GatewaySpanOptions {
  /** OpenTelemetry `SpanKind`: 0 internal, 1 server, 2 client. */
  kind?: number;
  /** The span's first attributes. */
  attributes?: Record<string, string | number | boolean>;
}

/**
 * An OpenTelemetry `Tracer` (`trace.getTracer('my-gateway')` from `@opentelemetry/api`), typed
 * structurally: pass one as `createGateway({ tracer })` and the gateway records spans for each
 * request, action run, job run and callback attempt. Without a tracer nothing is traced and
 * nothing is loaded.
 *
 * @example
 * import { trace } from '@opentelemetry/api';
 * const gateway = createGateway({ ...options, tracer: trace.getTracer('acme-gateway') });
 */
export interface GatewayTracer {
  /** Starts a span; `context` carries the parent span, when there is one. */
  startSpan(name: string, options?: GatewaySpanOptions, context?: unknown): GatewaySpan;
}

/** OpenTelemetry's `SpanKind` and `SpanStatusCode` values, as numbers (no import needed). */
export const SPAN_KIND = { internal: 0, server: 1, client: 2 } as const;
export const SPAN_STATUS_ERROR = 2;

/**
 * OpenTelemetry's context key of the active span: `createContextKey` is `Symbol.for`, so this is
 * the very key `trace.setSpan` uses, in every copy of `@opentelemetry/api`.
 */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/**
 * A minimal OpenTelemetry `Context` (immutable: `setValue` and `deleteValue` return new ones)
 * holding `span` as the active span, to start a child span of it without `@opentelemetry/api`.
 */
export class ParentContext {
  readonly #values: ReadonlyMap<symbol, unknown>;

  constructor(values: ReadonlyMap<symbol, unknown>) {
    this.#values = values;
  }

  static of(span: GatewaySpan): ParentContext {
    return new ParentContext(new Map([[SPAN_KEY, span]]));
  }

  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }

  setValue(key: symbol, value: unknown): ParentContext {
    return new ParentContext(new Map(this.#values).set(key, value));
  }

  deleteValue(key: symbol): ParentContext {
    const values = new Map(this.#values);
    values.delete(key);
    return new ParentContext(values);
  }
}
