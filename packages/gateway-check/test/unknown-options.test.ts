import { afterEach, describe, expect, it } from 'vitest';
import { checkGateway } from '../src/check/check-gateway.ts';
import { createGatewayClient } from '../src/client/create-gateway-client.ts';
import { CheckOptionsError } from '../src/errors/check-options-error.ts';
import { buildSummary, referenceGateway, TOKEN } from './fixtures/reference-gateway.ts';
import { IN_PROCESS_URL, inProcess } from './gateways.ts';

// A JavaScript user's typo (`tokn`, `timeout`) used to be ignored: the client then called the
// gateway without credentials, the checker kept its 10 s default. Every options object refuses
// keys it does not know, naming them and the known ones, never a value (an option may be a token).

const SECRET = 'do-not-print-this-secret';

/** A fetch that counts requests and answers none. */
function counting() {
  const seen = { requests: 0 };
  const fetch = () => {
    seen.requests += 1;
    return Promise.reject(new Error('no request expected'));
  };
  return { seen, fetch };
}

/** A JavaScript caller's options: no type checking. */
const js = <T>(options: Record<string, unknown>) => options as T;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('checkGateway refuses unknown options before any request', () => {
  it('timeout (the option is timeoutMs)', async () => {
    const { seen, fetch } = counting();
    const error = await checkGateway(
      js({ url: IN_PROCESS_URL, token: TOKEN, fetch, timeout: 5 }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckOptionsError);
    expect((error as Error).message).toBe(
      'checkGateway: unknown option "timeout" (known: url, token, only, allowWrites, callbackHost, callbackPort, callbackUrl, fetch, timeoutMs, jobTimeoutMs, pollIntervalMs, deadlineMs, maxActions, signal, onCheck).',
    );
    expect(seen.requests).toBe(0);
  });

  it('a misspelt token: names the keys, never the value, before asking for the token', async () => {
    const error = await checkGateway(
      js({ url: IN_PROCESS_URL, tokn: SECRET, allowWrite: true }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckOptionsError);
    const { message } = error as Error;
    expect(message).toMatch(/^checkGateway: unknown options "tokn", "allowWrite" \(known: url, /);
    expect(message).not.toContain(SECRET);
  });
});

describe('createGatewayClient refuses unknown options', () => {
  it('tokn: no client that would call the gateway without credentials', () => {
    const { seen, fetch } = counting();
    const create = () => createGatewayClient(js({ url: IN_PROCESS_URL, tokn: SECRET, fetch }));
    expect(create).toThrow(CheckOptionsError);
    expect(create).toThrow(
      'createGatewayClient: unknown option "tokn" (known: url, token, fetch, timeoutMs).',
    );
    expect(create).not.toThrow(SECRET);
    expect(seen.requests).toBe(0);
  });

  it('timeout (the option is timeoutMs)', () => {
    expect(() =>
      createGatewayClient(js({ url: IN_PROCESS_URL, token: TOKEN, timeout: 5 })),
    ).toThrow(
      'createGatewayClient: unknown option "timeout" (known: url, token, fetch, timeoutMs).',
    );
  });

  it('no token at all, never sending "Bearer undefined"', () => {
    expect(() => createGatewayClient(js({ url: IN_PROCESS_URL }))).toThrow(
      'createGatewayClient: token is undefined: is an environment variable unset? (expected a non-empty string)',
    );
  });

  it('a url with a query (its routes would go under the query) is refused, without printing it', () => {
    expect(() =>
      createGatewayClient({ url: 'https://gw.example/base?key=k3y', token: TOKEN }),
    ).toThrow(
      'createGatewayClient: url is a string: expected a URL without a query or fragment (routes are paths under it).',
    );
  });

  it('a token read as a number (unquoted in a YAML file) is not printed', async () => {
    const token = 8675309123;
    expect(() => createGatewayClient(js({ url: IN_PROCESS_URL, token }))).toThrow(
      'createGatewayClient: token is a number: expected a non-empty string.',
    );
    await expect(checkGateway(js({ url: IN_PROCESS_URL, token }))).rejects.toThrow(
      'checkGateway: token is a number: expected a non-empty string.',
    );
  });

  it('names at most five keys, each at most 64 characters', () => {
    const options: Record<string, unknown> = { url: IN_PROCESS_URL, token: TOKEN };
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'x'.repeat(100)]) options[key] = 1;
    expect(() => createGatewayClient(js(options))).toThrow(
      /^createGatewayClient: unknown options "a", "b", "c", "d", "e" and 3 more \(known: /,
    );
  });
});

describe("the client's methods refuse unknown options, before any request", () => {
  const client = () => {
    const { seen, fetch } = counting();
    return { seen, client: createGatewayClient({ url: IN_PROCESS_URL, token: TOKEN, fetch }) };
  };

  it('invoke: a misspelt idempotencyKey would send the invoke without one', async () => {
    const { seen, client: c } = client();
    const error = await c
      .invoke('find-customer', { customerId: 'cus_123' }, js({ idempotencyKy: SECRET }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckOptionsError);
    expect((error as Error).message).toBe(
      'GatewayClient.invoke: unknown option "idempotencyKy" (known: invocationId, idempotencyKey, traceId, deadlineAt, meeting, session, context, callbacks, signal).',
    );
    expect((error as Error).message).not.toContain(SECRET);
    expect(seen.requests).toBe(0);
  });

  it('JobHandle.wait: pollInterval (the option is pollIntervalMs)', async () => {
    const { seen, client: c } = client();
    const error = await c
      .job('job_1')
      .wait(js({ pollInterval: 20 }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckOptionsError);
    expect((error as Error).message).toBe(
      'JobHandle.wait: unknown option "pollInterval" (known: signal, pollIntervalMs, timeoutMs).',
    );
    expect(seen.requests).toBe(0);
  });

  it.each([
    [
      'GatewayClient.manifest',
      (c: ReturnType<typeof client>['client']) => c.manifest(js({ signl: 1 })),
    ],
    ['JobHandle.get', (c: ReturnType<typeof client>['client']) => c.job('j').get(js({ signl: 1 }))],
    [
      'JobHandle.cancel',
      (c: ReturnType<typeof client>['client']) => c.job('j').cancel(js({ signl: 1 })),
    ],
  ])('%s: a misspelt signal would never abort', async (who, call) => {
    const { seen, client: c } = client();
    const error = await call(c).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckOptionsError);
    expect((error as Error).message).toBe(`${who}: unknown option "signl" (known: signal).`);
    expect(seen.requests).toBe(0);
  });

  it('every known option still works', async () => {
    const gateway = referenceGateway();
    closers.push(() => gateway.close());
    const c = createGatewayClient({
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: inProcess((r) => gateway.fetch(r)),
      timeoutMs: 5_000,
    });
    const signal = new AbortController().signal;
    await c.manifest({ signal });
    const outcome = await c.invoke(
      buildSummary,
      { topic: 'Q3 numbers', pages: 2 },
      {
        invocationId: 'inv_1',
        idempotencyKey: 'key_1',
        traceId: 'trace_1',
        meeting: { id: 'm1', roomName: 'Weekly' },
        session: { id: 's1', mode: 'active' },
        context: {},
        callbacks: {},
        signal,
      },
    );
    if (outcome.status !== 'accepted') throw new Error(`expected accepted, got ${outcome.status}`);
    await outcome.handle.get({ signal });
    await outcome.handle.cancel({ signal });
    const job = await outcome.handle.wait({ signal, pollIntervalMs: 20, timeoutMs: 5_000 });
    expect(job.status).toBe('cancelled');
  });
});
