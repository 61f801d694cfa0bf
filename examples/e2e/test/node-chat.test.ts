import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CallbackReceiver, startCallbackReceiver } from '../src/callback-receiver.ts';
import { type RunningExample, startExample } from '../src/example-process.ts';
import { eventually, http } from '../src/http.ts';

// examples/node with CHAT_WEBHOOK_URL: each new approval is posted to the chat webhook by the
// onApprovalRequested hook (once per approval: tested in @svc/gateway-kit and on Redis).
const TOKEN = 'e2e-node-chat-gateway-token';
let chat: CallbackReceiver;
let example: RunningExample;

beforeAll(async () => {
  chat = await startCallbackReceiver();
  example = await startExample({
    example: 'node',
    command: process.execPath,
    args: ['src/server.ts'],
    env: { GATEWAY_TOKEN: TOKEN, CHAT_WEBHOOK_URL: `${chat.url}/hooks/chat` },
  });
}, 30_000);
afterAll(async () => {
  await example?.stop();
  await chat?.close();
});

it('posts "approval requested" to the chat webhook, with a link to the approvals page and without the input', async () => {
  const answer = await http(`${example.url}/v1/invoke`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    body: {
      invocationId: 'inv_chat_1',
      idempotencyKey: 'chat-refund-1',
      meeting: { id: 'm_chat', roomName: 'Support' },
      session: { id: 's_chat', mode: 'active' },
      context: {},
      action: { id: 'issue-refund', input: { orderId: 'ord_2001', amountCents: 1250 } },
      callbacks: {},
    },
  });
  expect(answer.body).toMatchObject({ status: 'approval_required' });
  const posted = await eventually('the chat post', async () => chat.received[0]);
  expect(posted.path).toBe('/hooks/chat');
  const { text } = posted.body as { text: string };
  expect(text).toContain('Approval requested: issue-refund');
  expect(text).toContain(`${example.url}/operator/`);
  // The input (order, amount) stays out of the chat message.
  expect(text).not.toContain('ord_2001');
});
