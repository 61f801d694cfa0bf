import { createGateway } from '@svc/gateway-kit';
import { expect, it } from 'vitest';
import { checkGateway } from '../src/check/check-gateway.ts';
import type { Handler } from './fixtures/broken-gateways.ts';
import { closeAccount, findCustomer, TOKEN } from './fixtures/reference-gateway.ts';
import { IN_PROCESS_URL, inProcess } from './gateways.ts';

/** A gateway with one read and one destructive action that runs `action.name` over `action.id`. */
function nameFirstGateway(): { handler: Handler; ran: string[] } {
  const gateway = createGateway({
    gateway: { id: 'name-first', name: 'Name first' },
    version: '2026-11-22',
    actions: [findCustomer, closeAccount],
    auth: { tokens: [TOKEN] },
  });
  const ran: string[] = [];
  const handler: Handler = async (request) => {
    if (new URL(request.url).pathname !== '/v1/invoke') return gateway.fetch(request);
    const body = (await request
      .clone()
      .json()
      .catch(() => undefined)) as { action?: { id?: string; name?: string } } | undefined;
    const action = body?.action;
    if (!action || action.name === undefined) return gateway.fetch(request);
    action.id = action.name;
    delete action.name;
    ran.push(action.id);
    return gateway.fetch(new Request(request, { body: JSON.stringify(body) }));
  };
  return { handler, ran };
}

it('never names an action it may not invoke, even as the second action of an invoke', async () => {
  const { handler, ran } = nameFirstGateway();
  const report = await checkGateway({
    url: IN_PROCESS_URL,
    token: TOKEN,
    fetch: inProcess(handler),
  });
  expect(ran).not.toContain('close-account');
  expect(report.checks.find((c) => c.id === 'invoke-one-action:two')).toMatchObject({
    status: 'skipped',
    message:
      'the manifest offers no second action the checker may invoke (read actions only without --allow-writes)',
  });
});

it('names a write action as the second action with allowWrites', async () => {
  const { handler, ran } = nameFirstGateway();
  await checkGateway({
    url: IN_PROCESS_URL,
    token: TOKEN,
    fetch: inProcess(handler),
    allowWrites: true,
    only: ['invoke-one-action:two'],
  });
  expect(ran).toEqual(['close-account']);
});
