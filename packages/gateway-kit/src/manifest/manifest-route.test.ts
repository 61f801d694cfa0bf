import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { fixtureGateway, TOKEN } from '../../test/fixture-gateway.ts';
import { defineAction } from '../actions/define-action.ts';
import { ManifestSchema } from '../contract/index.ts';
import { createGateway } from '../gateway/create-gateway.ts';
import { createTestClient } from '../testing/index.ts';

describe('GET /v1/manifest', () => {
  const gateway = fixtureGateway();
  const client = createTestClient(gateway, { token: TOKEN });

  it('serves every field of the contract manifest table, valid against the manifest schema', async () => {
    const { status, body, headers } = await client.manifest();
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json');
    expect(v.is(ManifestSchema, body)).toBe(true);
    expect(body).toMatchObject({
      version: '2026-11-01',
      gateway: {
        id: 'acme',
        name: 'Acme back office',
        url: 'https://gateway.acme.example',
        auth: { type: 'bearer' },
        capabilities: { asyncJobs: false, jobCallbacks: false, approvals: false },
      },
      agent: { id: 'acme-agent', name: 'Acme agent', description: 'Back-office helper.' },
      callbacks: { jobResults: false, approvals: false },
    });
    expect(body).toEqual(gateway.manifest);
  });

  it('describes each action with a JSON Schema of its input (object root, required, additionalProperties)', async () => {
    const { body } = await client.manifest();
    const [lookup] = (body as { actions: Record<string, unknown>[] }).actions;
    expect(lookup).toEqual({
      id: 'lookup-account',
      name: 'lookupAccount',
      title: 'Look up an account',
      description: 'Finds a customer account by id.',
      executionMode: 'sync',
      requiresApproval: false,
      sideEffectLevel: 'read',
      idempotent: true,
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { accountId: { type: 'string', minLength: 1 } },
        required: ['accountId'],
        additionalProperties: false,
      },
    });
  });

  it('answers 304 to a matching If-None-Match, and the same bytes every time', async () => {
    const first = await client.request('/v1/manifest');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    const again = await client.request('/v1/manifest');
    expect(again.headers.get('etag')).toBe(etag);
    const notModified = await client.request('/v1/manifest', {
      headers: { 'if-none-match': `"other", ${etag}` },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeNull();
    const changed = await client.request('/v1/manifest', {
      headers: { 'if-none-match': '"other"' },
    });
    expect(changed.status).toBe(200);
  });

  it('changes the ETag when the actions change', async () => {
    const other = fixtureGateway({
      actions: [defineAction({ id: 'ping', input: v.object({}), run: () => ({}) })],
    });
    const a = (await client.manifest()).headers.get('etag');
    const b = (await createTestClient(other, { token: TOKEN }).manifest()).headers.get('etag');
    expect(a).not.toBe(b);
  });

  it('derives gateway.url from the request when none is configured', async () => {
    const unconfigured = fixtureGateway({ gateway: { id: 'g', name: 'G' }, basePath: '/gw' });
    const local = createTestClient(unconfigured, {
      token: TOKEN,
      baseUrl: 'http://localhost:8787',
    });
    const { body } = await local.request('/gw/v1/manifest');
    expect((body as { gateway: { url: string } }).gateway.url).toBe('http://localhost:8787/gw');
    expect(v.is(ManifestSchema, body)).toBe(true);
  });

  it('defaults the agent to the gateway identity', () => {
    const plain = createGateway({
      gateway: { id: 'acme', name: 'Acme back office' },
      actions: [],
      auth: { tokens: [TOKEN] },
    });
    expect(plain.manifest.agent).toEqual({ id: 'acme', name: 'Acme back office', description: '' });
    expect(plain.manifest.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
