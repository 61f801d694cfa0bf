import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as v from 'valibot';
import { afterEach, expect, it, vi } from 'vitest';
import { defineAction } from '../../actions/define-action.ts';
import { createGateway, type Gateway } from '../../gateway/create-gateway.ts';
import { invokeBody } from '../../testing/index.ts';
import { type RunningServer, serve } from './serve.ts';

const TOKEN = 'pinned-default-token';
const job = defineAction({
  id: 'job',
  executionMode: 'async',
  input: v.strictObject({}),
  run: async () => ({ outputText: 'done' }),
});

let gateway: Gateway;
let running: RunningServer;
let receiver: Server;
afterEach(async () => {
  vi.restoreAllMocks();
  await running?.close();
  await gateway?.close();
  receiver?.close();
});

/** Serves a gateway whose job callbacks go to a loopback receiver; counts the global fetch calls. */
async function callbackThrough(options: { pinCallbackAddresses?: boolean }) {
  const received: string[] = [];
  receiver = createServer((req, res) => {
    received.push(req.url ?? '');
    res.writeHead(204).end();
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => receiver.once('listening', resolve));
  const { port } = receiver.address() as AddressInfo;
  gateway = createGateway({
    gateway: { id: 'acme', name: 'Acme' },
    actions: [job],
    auth: { tokens: [TOKEN] },
    logger: { error: () => {}, warn: () => {} },
    callbacks: { urlPolicy: { allowInsecureLoopback: true } },
  });
  running = await serve(gateway, { port: 0, ...options });
  const globalFetch = vi.spyOn(globalThis, 'fetch');
  const answer = await fetch(`${running.url}/v1/invoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(
      invokeBody('job', {}, { callbacks: { jobResultUrl: `http://127.0.0.1:${port}/hook` } }),
    ),
  });
  expect(answer.status).toBe(200);
  await gateway.idle();
  const hookCalls = globalFetch.mock.calls.filter(([url]) => String(url).endsWith('/hook'));
  return { received, globalFetchCalls: hookCalls.length };
}

it('under the Node adapter, callbacks use the pinned connection (not the global fetch) by default', async () => {
  const { received, globalFetchCalls } = await callbackThrough({});
  expect(received).toEqual(['/hook']);
  expect(globalFetchCalls).toBe(0);
});

it('pinCallbackAddresses: false leaves callbacks on the global fetch', async () => {
  const { received, globalFetchCalls } = await callbackThrough({ pinCallbackAddresses: false });
  expect(received).toEqual(['/hook']);
  expect(globalFetchCalls).toBe(1);
});
