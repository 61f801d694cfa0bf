import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run-cli.ts';
import { createGatewayClient } from '../src/client/create-gateway-client.ts';
import { isGatewayClientError } from '../src/errors/gateway-client-error.ts';
import { referenceGateway, TOKEN } from './fixtures/reference-gateway.ts';
import { serveHandler } from './serve-handler.ts';

// A gateway may echo the credential it was sent: in an error message, in a field the checker
// then reports as not matching the contract, in a header. What it answers goes into the report,
// the JUnit file CI keeps as an artifact, and the client's errors: the token never does.

const SECRET = 'gwtok_Live_7Qm2ZpX9';
const gateway = referenceGateway();

/** The reference gateway, with every answer echoing the Authorization header it was sent. */
const echoing = await serveHandler(async (request) => {
  const sent = request.headers.get('authorization') ?? '';
  // The reference gateway's token stands for SECRET, so it answers as it would to it.
  const headers = new Headers(request.headers);
  if (sent === `Bearer ${SECRET}`) headers.set('authorization', `Bearer ${TOKEN}`);
  const answer = await gateway.fetch(new Request(request, { headers }));
  const body = (await answer.json()) as Record<string, unknown>;
  const path = new URL(request.url).pathname;
  if (answer.status !== 200) {
    const error = body.error as Record<string, unknown>;
    // Not a boolean: the envelope check reports it, with the value it got.
    return Response.json(
      { error: { ...error, message: `token ${sent} refused`, retryable: sent } },
      { status: answer.status, headers: { 'x-echo': sent } },
    );
  }
  if (path === '/v1/manifest') {
    const manifest = body as { gateway: Record<string, unknown> };
    manifest.gateway.auth = { type: sent };
  }
  return Response.json(body, { headers: { 'x-echo': sent } });
});
afterAll(async () => {
  await echoing.close();
  await gateway.close();
});

describe('a gateway that echoes the token', () => {
  it('svc-gateway-check prints it nowhere: human report, JSON report, JUnit file', async () => {
    const files: string[] = [];
    const run = async (...extra: string[]) => {
      const out: string[] = [];
      const code = await runCli(['--url', echoing.url, '--token', SECRET, ...extra], {
        out: (text) => out.push(text),
        err: (text) => out.push(text),
        env: {},
        writeFile: async (_path, text) => {
          files.push(text);
        },
      });
      return { code, out: out.join('\n') };
    };
    const human = await run('--junit', 'report.xml', '--only', 'manifest-shape,auth-bearer');
    const json = await run('--json', '--only', 'manifest-shape,auth-bearer,error-envelope');
    expect(human.code).toBe(1);
    // The broken field is named, with what was expected, but not with what came.
    expect(human.out).toContain(
      'gateway.auth.type: Invalid type: Expected "bearer" but received a string',
    );
    expect(json.out).toContain('error.retryable');
    for (const text of [human.out, json.out, ...files]) expect(text).not.toContain(SECRET);
    expect(files).toHaveLength(1);
  });

  it("the client's errors hold it nowhere: message, envelope, issues", async () => {
    const client = createGatewayClient({ url: echoing.url, token: SECRET });
    const manifest = await client.manifest().catch((error: unknown) => error);
    expect(isGatewayClientError(manifest)).toBe(true);
    const unknownJob = await client
      .job('job_unknown')
      .get()
      .catch((error: unknown) => error);
    expect(isGatewayClientError(unknownJob)).toBe(true);
    for (const error of [manifest, unknownJob]) {
      const { message, error: envelope, issues } = error as Record<string, unknown>;
      expect(JSON.stringify({ message, envelope, issues })).not.toContain(SECRET);
    }
  });
});
