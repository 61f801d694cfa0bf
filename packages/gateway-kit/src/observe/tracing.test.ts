import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asyncGateway, TOKEN } from '../../test/async-fixture.ts';
import { startCallbackReceiver } from '../../test/callback-receiver.ts';
import { fixtureGateway } from '../../test/fixture-gateway.ts';
import type { Gateway } from '../gateway/create-gateway.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';

const SERVER = 1;
const CLIENT = 2;
const ERROR = 2;

let exporter: InMemorySpanExporter;
let provider: BasicTracerProvider;
let gateway: Gateway | undefined;

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await provider.shutdown();
});

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const named = (name: string): ReadableSpan[] => spans().filter((span) => span.name === name);

describe('OpenTelemetry spans (in-memory exporter)', () => {
  it('one sync invoke: a server span for the request with a child action span, both with the ids', async () => {
    gateway = fixtureGateway({ tracer: provider.getTracer('test') });
    const client = createTestClient(gateway, { token: TOKEN });
    const body = invokeBody('lookup-account', { accountId: 'acc_42' }, { traceId: 'trace-abc' });
    const answer = await client.invoke(body);
    expect(answer.status).toBe(200);

    const [request] = named('POST /v1/invoke');
    const [action] = named('action lookup-account');
    expect(request).toBeDefined();
    expect(action).toBeDefined();
    expect(request!.kind).toBe(SERVER);
    expect(request!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/invoke',
      'http.response.status_code': 200,
      'gateway.invocation.id': body.invocationId,
      'gateway.action.id': 'lookup-account',
      'gateway.trace_id': 'trace-abc',
      'gateway.outcome': 'completed',
    });
    expect(action!.parentSpanContext?.spanId).toBe(request!.spanContext().spanId);
    expect(action!.spanContext().traceId).toBe(request!.spanContext().traceId);
    expect(action!.attributes).toMatchObject({
      'gateway.invocation.id': body.invocationId,
      'gateway.action.id': 'lookup-account',
      'gateway.trace_id': 'trace-abc',
      'gateway.outcome': 'completed',
    });
    expect(spans()).toHaveLength(2);
  });

  it('records a rejection on the action span, and a crash as an error', async () => {
    gateway = fixtureGateway({ tracer: provider.getTracer('test') });
    const client = createTestClient(gateway, { token: TOKEN });
    await client.invoke(invokeBody('lookup-account', { accountId: 'closed' }));
    await client.invoke(invokeBody('misbehave', { mode: 'throw' }));
    const [rejected] = named('action lookup-account');
    expect(rejected!.attributes).toMatchObject({
      'gateway.outcome': 'rejected',
      'gateway.error.code': 'account_closed',
    });
    const [crashed] = named('action misbehave');
    expect(crashed!.attributes).toMatchObject({
      'gateway.outcome': 'error',
      'gateway.error.code': 'internal_error',
    });
    expect(crashed!.status.code).toBe(ERROR);
    expect(named('POST /v1/invoke')[1]!.status.code).toBe(ERROR);
  });

  it('names spans of other routes by their template, never by the ids in the path', async () => {
    gateway = fixtureGateway({ tracer: provider.getTracer('test') });
    const client = createTestClient(gateway, { token: TOKEN });
    await client.request('/v1/jobs/job_secret_looking_id');
    const [span] = named('GET /v1/jobs/{jobId}');
    expect(span!.attributes['http.response.status_code']).toBe(404);
    expect(
      JSON.stringify(spans().map(({ name, attributes }) => ({ name, attributes }))),
    ).not.toContain('job_secret_looking_id');
  });

  it('an async invoke: a job span that ends with the job status; each callback attempt a client span with the HTTP status', async () => {
    const receiver = await startCallbackReceiver();
    try {
      gateway = asyncGateway({ tracer: provider.getTracer('test') });
      const client = createTestClient(gateway, { token: TOKEN });
      const body = invokeBody(
        'generate-report',
        { topic: 'sales' },
        {
          callbacks: {
            jobResultUrl: `${receiver.url}/jobs?key=in-the-query`,
            authorization: 'Bearer cb-credential',
          },
        },
      );
      const answer = await client.invoke(body);
      expect(answer.body).toMatchObject({ status: 'accepted' });
      const jobId = (answer.body as { job: { jobId: string } }).job.jobId;
      await gateway.idle();

      const [job] = named('job generate-report');
      expect(job!.attributes).toMatchObject({
        'gateway.job.id': jobId,
        'gateway.invocation.id': body.invocationId,
        'gateway.action.id': 'generate-report',
        'gateway.job.status': 'completed',
      });
      const [attempt] = named('POST');
      expect(attempt!.kind).toBe(CLIENT);
      expect(attempt!.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.response.status_code': 204,
        'server.address': receiver.url,
        'gateway.job.id': jobId,
        'gateway.invocation.id': body.invocationId,
        'gateway.webhook_id': `job_${jobId}_completed`,
      });
      const everything = JSON.stringify(spans().map((span) => span.attributes));
      expect(everything).not.toContain('cb-credential');
      expect(everything).not.toContain('in-the-query');
      expect(everything).not.toContain('sales');
    } finally {
      await receiver.close();
    }
  });

  it('a failed job ends its span as an error with the code', async () => {
    gateway = asyncGateway({ tracer: provider.getTracer('test') });
    const client = createTestClient(gateway, { token: TOKEN });
    await client.invoke(invokeBody('generate-report', { topic: 't', mode: 'reject' }));
    await gateway.idle();
    const [job] = named('job generate-report');
    expect(job!.attributes).toMatchObject({
      'gateway.job.status': 'failed',
      'gateway.error.code': 'topic_banned',
    });
    expect(job!.status.code).toBe(ERROR);
  });

  it('a cancelled job ends its span as cancelled, once', async () => {
    gateway = asyncGateway({ tracer: provider.getTracer('test') });
    const client = createTestClient(gateway, { token: TOKEN });
    const answer = await client.invoke(invokeBody('generate-report', { topic: 't', mode: 'wait' }));
    const jobId = (answer.body as { job: { jobId: string } }).job.jobId;
    expect((await client.request(`/v1/jobs/${jobId}/cancel`, { method: 'POST' })).status).toBe(200);
    await gateway.idle();
    const jobs = named('job generate-report');
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.attributes['gateway.job.status']).toBe('cancelled');
  });
});
