import { ApprovalRequiredResponseSchema, JobSchema } from '@svc/gateway-kit/contract';
import { invokeBody } from '@svc/gateway-kit/testing';
import type { Page } from '@svc/headless-chromium';
import { type HeadlessChromium, launchHeadlessChromium } from '@svc/headless-chromium';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningExample, startExample } from '../../src/example-process.ts';
import { eventually, http, valid } from '../../src/http.ts';

// The approvals page of examples/node in headless Chromium (Debian's /usr/bin/chromium, or
// CHROMIUM_PATH): a refund asked for over /v1/invoke is approved by clicking in the page.
const TOKEN = 'browser-gateway-token';
const OPERATOR_TOKEN = 'browser-operator-token';
const auth = { authorization: `Bearer ${TOKEN}` };

let example: RunningExample;
let browser: HeadlessChromium;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  example = await startExample({
    example: 'node',
    command: process.execPath,
    args: ['src/server.ts'],
    env: { GATEWAY_TOKEN: TOKEN, OPERATOR_TOKEN },
  });
  browser = await launchHeadlessChromium('operator-page');
  page = await browser.context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await example?.stop();
});

async function requestRefund(amountCents: number): Promise<string> {
  const answer = await http(`${example.url}/v1/invoke`, {
    headers: auth,
    body: invokeBody('issue-refund', { orderId: 'ord_2001', amountCents }),
  });
  return valid(ApprovalRequiredResponseSchema, answer.body, 'approval_required').approval
    .approvalId;
}

const approvalStatus = async (approvalId: string) => {
  const answer = await http(`${example.url}/v1/approvals/${approvalId}`, { headers: auth });
  return (answer.body as { approval: { status: string; job?: { jobId: string } } }).approval;
};

const row = (approvalId: string) => page.locator(`tr[data-approval-id="${approvalId}"]`);
const message = () => page.locator('#message').textContent();

describe('the approvals page of examples/node (headless Chromium)', () => {
  it('asks for the operator token and refuses a wrong one', async () => {
    await page.goto(`${example.url}/operator/`);
    await page.getByLabel('Operator token').waitFor();
    await page.getByLabel('Operator token').fill('not-the-operator-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The operator token was refused. Enter it again.').waitFor();
    expect(await page.getByLabel('Operator token').isVisible()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem('operatorToken'))).toBeNull();
  });

  it('shows a pending refund with its input, reason and expiry; Approve runs it to completion', async () => {
    const approvalId = await requestRefund(1250);
    await page.getByLabel('Operator token').fill(OPERATOR_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await row(approvalId).waitFor();
    const cells = await row(approvalId).locator('td').allTextContents();
    expect(cells[0]).toContain('issue-refund');
    expect(cells[0]).toContain(approvalId);
    expect(JSON.parse(cells[1]!)).toEqual({ orderId: 'ord_2001', amountCents: 1250 });
    expect(cells[2]).toBe('"Issue a refund" needs an operator\'s approval.');
    const expiresAt = await row(approvalId).locator('time').getAttribute('datetime');
    expect(Date.parse(expiresAt!)).toBeGreaterThan(Date.now());

    await row(approvalId).getByRole('button', { name: 'Approve' }).click();
    await page.getByText(`Approved ${approvalId} (issue-refund).`).waitFor();
    await row(approvalId).waitFor({ state: 'detached' });
    expect(await message()).toMatch(/Job job_\S+ is (queued|running|completed)\./);

    const decided = await approvalStatus(approvalId);
    expect(decided.status).toBe('approved');
    const job = await eventually('the refund job to complete', async () => {
      const answer = await http(`${example.url}/v1/jobs/${decided.job!.jobId}`, { headers: auth });
      const current = valid(JobSchema, answer.body, 'job');
      return current.status === 'completed' ? current : undefined;
    });
    expect(job.outputText).toBe('Refunded 12.50 EUR on order ord_2001.');
  });

  it('keeps the token for the tab, and Deny refuses a refund', async () => {
    const approvalId = await requestRefund(700);
    await page.reload();
    // No second sign-in: the token is in sessionStorage.
    await row(approvalId).waitFor();
    expect(await page.getByLabel('Operator token').isVisible()).toBe(false);

    await row(approvalId).getByRole('button', { name: 'Deny' }).click();
    await page.getByText(`Denied ${approvalId} (issue-refund).`).waitFor();
    await row(approvalId).waitFor({ state: 'detached' });
    expect(await approvalStatus(approvalId)).toMatchObject({ status: 'denied' });
    expect(await page.locator('#empty').isVisible()).toBe(true);
  });

  it('ran without Content-Security-Policy violations or script errors', () => {
    // The one expected console error is the 401 of the wrong token.
    const unexpected = consoleErrors.filter((text) => !/401/.test(text));
    expect(unexpected).toEqual([]);
  });
});
