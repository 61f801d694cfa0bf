import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asyncGateway, probe, TOKEN } from '../../test/async-fixture.ts';
import { toNodeHandler } from '../adapters/node/index.ts';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';
import { MemoryJobStore } from '../store/memory-job-store.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';
import { type ApprovalsHandler, createApprovalsHandler } from './approvals-handler.ts';
import type { Gateway } from './create-gateway.ts';

const OPERATOR_TOKEN = 'operator-token-for-tests';
const BASE = 'https://ops.acme.example/operator/api';

let gateway: Gateway;
let approvals: ApprovalsHandler;
let now: number;

beforeEach(() => {
  now = Date.now();
  gateway = asyncGateway({ now: () => now, approvals: { ttlMs: 60_000 } });
  approvals = createApprovalsHandler(gateway, {
    auth: { tokens: [{ token: OPERATOR_TOKEN, principal: { id: 'ops@acme.example' } }] },
    basePath: '/operator/api',
  });
});
afterEach(() => gateway.close());

async function call(
  path: string,
  init: { method?: string; body?: string; token?: string; type?: string } = {},
) {
  const response = await approvals.fetch(
    new Request(`${BASE}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        authorization: `Bearer ${init.token ?? OPERATOR_TOKEN}`,
        ...(init.body !== undefined ? { 'content-type': init.type ?? 'application/json' } : {}),
      },
      ...(init.body !== undefined ? { body: init.body } : {}),
    }),
  );
  return { status: response.status, headers: response.headers, body: await response.json() };
}

async function requestApproval(orderId: string): Promise<string> {
  const client = createTestClient(gateway, { token: TOKEN });
  const answer = await client.invoke(invokeBody('issue-refund', { orderId, amountCents: 100 }));
  return (answer.body as { approval: { approvalId: string } }).approval.approvalId;
}

describe('createApprovalsHandler', () => {
  it('has its own auth: no token, a wrong one or the gateway caller token is 401', async () => {
    for (const token of ['', 'wrong', TOKEN]) {
      const answer = await call('/approvals', { token });
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ error: { code: 'unauthorized', retryable: false } });
      expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="approvals"');
    }
  });

  it('lists pending approvals a page at a time, oldest first', async () => {
    const ids = [];
    for (const order of ['o1', 'o2', 'o3']) {
      ids.push(await requestApproval(order));
      now += 1;
    }
    const first = await call('/approvals?status=pending&limit=2');
    expect(first.status).toBe(200);
    expect(first.body.approvals.map((a: { approvalId: string }) => a.approvalId)).toEqual(
      ids.slice(0, 2),
    );
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call(
      `/approvals?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    expect(second.body.approvals.map((a: { approvalId: string }) => a.approvalId)).toEqual([
      ids[2],
    ]);
    expect(second.body.nextCursor).toBeUndefined();
    expect((await call('/approvals?status=approved')).body).toEqual({ approvals: [] });
  });

  it('refuses a bad status, limit or cursor with invalid_request naming the parameter', async () => {
    for (const [query, path] of [
      ['status=maybe', 'status'],
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=two', 'limit'],
      ['cursor=garbage', 'cursor'],
    ]) {
      const answer = await call(`/approvals?${query}`);
      expect(answer.status).toBe(422);
      expect(answer.body.error).toMatchObject({
        code: 'invalid_request',
        details: { issues: [{ path }] },
      });
    }
  });

  it('refuses a cursor naming no approval id (a NUL, kilobytes) with 422', async () => {
    await requestApproval('o1');
    for (const cursor of ['1.x', '1.apr_\u0000', `1.apr_${'a'.repeat(3_000)}`]) {
      const answer = await call(`/approvals?cursor=${encodeURIComponent(cursor)}`);
      expect(answer.status).toBe(422);
      expect(answer.body.error).toMatchObject({
        code: 'invalid_request',
        details: { issues: [{ path: 'cursor' }] },
      });
    }
  });

  it('answers 503 unavailable (retryable) when approving finds the job store full; the approval stays pending', async () => {
    const held = new MemoryJobStore({ maxJobs: 1 });
    const full = asyncGateway({ jobStore: held });
    const operators = createApprovalsHandler(full, {
      auth: { tokens: [{ token: OPERATOR_TOKEN, principal: { id: 'ops@acme.example' } }] },
    });
    try {
      const client = createTestClient(full, { token: TOKEN });
      const running = await client.invoke(
        invokeBody('generate-report', { topic: 't', mode: 'wait' }),
      );
      expect(running.body).toMatchObject({ status: 'accepted' });
      const asked = await client.invoke(
        invokeBody('issue-refund', { orderId: 'o1', amountCents: 100 }),
      );
      const { approvalId } = (asked.body as { approval: { approvalId: string } }).approval;
      const headers = { authorization: `Bearer ${OPERATOR_TOKEN}` };
      const decided = await operators.fetch(
        new Request(`https://ops.acme.example/approvals/${approvalId}/decision`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: '{"approved":true}',
        }),
      );
      expect(decided.status).toBe(503);
      expect(await decided.json()).toEqual({
        error: { code: 'unavailable', message: expect.any(String), retryable: true },
      });
      const after = await operators.fetch(
        new Request(`https://ops.acme.example/approvals/${approvalId}`, { headers }),
      );
      expect(((await after.json()) as { approval: { status: string } }).approval.status).toBe(
        'pending',
      );
    } finally {
      probe.release?.();
      await full.close();
    }
  });

  it('gets one approval; an unknown id is 404 approval_not_found', async () => {
    const approvalId = await requestApproval('o1');
    const found = await call(`/approvals/${approvalId}`);
    expect(found.body.approval).toMatchObject({
      approvalId,
      status: 'pending',
      input: { orderId: 'o1' },
    });
    expect((await call('/approvals/apr_nope')).body.error.code).toBe('approval_not_found');
  });

  it('decides once, recording the operator as decidedBy; a second decision is 409', async () => {
    const approvalId = await requestApproval('o1');
    const decided = await call(`/approvals/${approvalId}/decision`, {
      body: JSON.stringify({ approved: true, note: 'ok' }),
    });
    expect(decided.status).toBe(200);
    expect(decided.body.approval).toMatchObject({
      status: 'approved',
      decidedBy: 'ops@acme.example',
      note: 'ok',
    });
    expect(decided.body.job).toMatchObject({ jobId: expect.any(String) });
    const again = await call(`/approvals/${approvalId}/decision`, {
      body: JSON.stringify({ approved: false }),
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'approval_already_decided', retryable: false });
    await gateway.idle();
  });

  it('an expired approval is 409 approval_expired; an unknown one 404', async () => {
    const approvalId = await requestApproval('o1');
    now += 61_000;
    const late = await call(`/approvals/${approvalId}/decision`, { body: '{"approved":true}' });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('approval_expired');
    const unknown = await call('/approvals/apr_nope/decision', { body: '{"approved":true}' });
    expect(unknown.status).toBe(404);
  });

  it('checks the decision body: JSON only, within its size, the right shape', async () => {
    const approvalId = await requestApproval('o1');
    const path = `/approvals/${approvalId}/decision`;
    expect((await call(path, { body: 'approved', type: 'text/plain' })).status).toBe(415);
    expect((await call(path, { body: '{"approved":' })).body.error).toMatchObject({
      code: 'malformed_json',
      message: 'The request body is not valid JSON.',
    });
    // The invoke route's JSON rules apply here too: no __proto__ key, no deep nesting.
    const polluting = await call(path, { body: '{"approved":true,"__proto__":{"admin":true}}' });
    expect(polluting.status).toBe(400);
    expect(polluting.body.error.message).toContain('__proto__');
    const deep = await call(path, { body: `${'['.repeat(100)}${']'.repeat(100)}` });
    expect(deep.body.error).toMatchObject({
      code: 'malformed_json',
      message: expect.stringContaining('nests'),
    });
    const big = await call(path, {
      body: JSON.stringify({ approved: true, pad: 'x'.repeat(20_000) }),
    });
    expect(big.status).toBe(413);
    const noFlag = await call(path, { body: '{"approved":"yes"}' });
    expect(noFlag.body.error).toMatchObject({
      code: 'invalid_request',
      details: { issues: [{ path: 'approved' }] },
    });
    const longNote = await call(path, {
      body: JSON.stringify({ approved: true, note: 'n'.repeat(1001) }),
    });
    expect(longNote.body.error.details.issues[0].path).toBe('note');
    // Still pending after all the refused attempts.
    expect((await call(`/approvals/${approvalId}`)).body.approval.status).toBe('pending');
  });

  it('answers 404 outside its routes and 405 with Allow for the wrong method', async () => {
    expect((await call('/elsewhere')).body.error.code).toBe('not_found');
    const wrong = await call('/approvals', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
  });

  it.each([
    [
      { auth: { tokens: [undefined] } },
      'createApprovalsHandler: auth.tokens[0] is undefined: is an environment variable unset? (expected a non-empty token string)',
    ],
    [
      { auth: { tokens: [] } },
      'createApprovalsHandler: auth.tokens is an empty array: is an environment variable unset? (expected a list of at least one token)',
    ],
    [
      { auth: undefined },
      'createApprovalsHandler: auth is undefined: expected { tokens: [...] } or { verify(token) }.',
    ],
    [
      { auth: { tokens: ['t'] }, basePath: 'operator/' },
      'createApprovalsHandler: basePath is a string: expected "/prefix" (no trailing slash).',
    ],
    [
      { auth: { tokens: ['t'] }, maxBodyBytes: 0 },
      'createApprovalsHandler: maxBodyBytes is the number 0: expected a positive integer.',
    ],
  ])("refuses the options %j at creation, in createGateway's message style", (options, message) => {
    expect(() => createApprovalsHandler(gateway, options as never)).toThrow(
      new GatewayConfigError(message),
    );
  });

  it('mounts on node:http with toNodeHandler, query string included', async () => {
    const approvalId = await requestApproval('o1');
    const server = createServer(toNodeHandler(approvals));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const headers = { authorization: `Bearer ${OPERATOR_TOKEN}` };
      const listed = await fetch(`${origin}/operator/api/approvals?limit=1&status=pending`, {
        headers,
      });
      expect(((await listed.json()) as { approvals: unknown[] }).approvals).toHaveLength(1);
      const bad = await fetch(`${origin}/operator/api/approvals?limit=0`, { headers });
      expect(bad.status).toBe(422);
      const decided = await fetch(`${origin}/operator/api/approvals/${approvalId}/decision`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{"approved":false}',
      });
      expect(await decided.json()).toMatchObject({ approval: { status: 'denied' } });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('mounts beside the gateway in Hono', async () => {
    const approvalId = await requestApproval('o1');
    const app = new Hono();
    app.all('/operator/api/*', (c) => approvals.fetch(c.req.raw));
    app.all('*', (c) => gateway.fetch(c.req.raw));
    const listed = await app.request(`${BASE}/approvals?limit=5`, {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    expect(await listed.json()).toMatchObject({ approvals: [{ approvalId }] });
    const manifest = await app.request('https://ops.acme.example/v1/manifest', {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(manifest.status).toBe(200);
  });
});
