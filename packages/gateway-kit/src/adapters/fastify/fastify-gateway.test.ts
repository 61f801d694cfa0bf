import { once } from 'node:events';
import { request as httpRequest, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import Fastify, {
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyServerOptions,
} from 'fastify';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureGateway, TOKEN } from '../../../test/fixture-gateway.ts';
import { defineAction } from '../../actions/define-action.ts';
import { createApprovalsHandler } from '../../gateway/approvals-handler.ts';
import { GatewayConfigError } from '../../runtime/gateway-config-error.ts';
import { invokeBody } from '../../testing/index.ts';
import { answerClientError } from '../node/client-errors.ts';
import { fastifyGateway } from './fastify-gateway.ts';
import { fastifyLogger } from './fastify-logger.ts';

const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

let aborted = 0;
/** Resolves once the action is running (its abort listener registered): no sleep needed. */
let actionRunning: () => void = () => {};
const waitForAbort = defineAction({
  id: 'wait-for-abort',
  input: v.object({}),
  timeoutMs: 5_000,
  run: (_, { signal }) =>
    new Promise((resolve) => {
      actionRunning();
      signal.addEventListener('abort', () => {
        aborted += 1;
        resolve({});
      });
    }),
});
const report = defineAction({
  id: 'report',
  input: v.object({}),
  executionMode: 'async',
  run: () => ({ outputText: 'done' }),
});

/** An app as users have them: JSON parsed by Fastify for its own routes, a hook, a small bodyLimit. */
async function startApp(
  register: (app: FastifyInstance) => Promise<unknown> | unknown,
  fastifyOptions: FastifyServerOptions = {},
): Promise<{ app: FastifyInstance; origin: string }> {
  // One connection is still mid-request when the suite ends; Node 22's server.close() waits for it (Node 24
  // does not), so app.close() destroys every connection, as Fastify documents for shutdowns.
  const app = Fastify({ bodyLimit: 1024, forceCloseConnections: true, ...fastifyOptions });
  app.post('/api/notes', async (request, reply) => reply.code(201).send({ saved: request.body }));
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-app-hook', 'ran');
  });
  await register(app);
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, origin };
}

/** A raw request (no client-side URL normalisation), answered with status, headers and text. */
function rawRequest(
  origin: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('@svc/gateway-kit/fastify, registered with a prefix', () => {
  const gateway = fixtureGateway({
    gateway: { id: 'acme', name: 'Acme' },
    actions: [
      waitForAbort,
      report,
      defineAction({
        id: 'lookup-account',
        input: v.strictObject({ accountId: v.string(), note: v.optional(v.string()) }),
        run: ({ accountId }) => ({ outputText: `Account ${accountId}` }),
      }),
    ],
    maxBodyBytes: 8192,
  });
  let app: FastifyInstance;
  let origin: string;
  beforeAll(async () => {
    ({ app, origin } = await startApp((a) =>
      a.register(fastifyGateway, { gateway, prefix: '/gateway' }),
    ));
  });
  afterAll(() => app.close());

  it('serves the contract under the prefix, with the prefix in every URL it answers', async () => {
    const manifest = await fetch(`${origin}/gateway/v1/manifest`, { headers });
    expect(manifest.status).toBe(200);
    expect(manifest.headers.get('content-type')).toBe('application/json');
    expect(((await manifest.json()) as { gateway: { url: string } }).gateway.url).toBe(
      `${origin}/gateway`,
    );
    const accepted = await fetch(`${origin}/gateway/v1/invoke`, {
      method: 'POST',
      headers,
      body: JSON.stringify(invokeBody('report', {})),
    });
    expect(accepted.status).toBe(200);
    const { job } = (await accepted.json()) as {
      job: { jobId: string; statusUrl: string; cancelUrl: string };
    };
    expect(job.statusUrl).toBe(`${origin}/gateway/v1/jobs/${job.jobId}`);
    expect(job.cancelUrl).toBe(`${origin}/gateway/v1/jobs/${job.jobId}/cancel`);
    const status = await fetch(job.statusUrl, { headers });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ jobId: job.jobId });
  });

  it('hands bodies to the gateway unparsed: its limits and checks apply, not Fastify bodyLimit', async () => {
    // 3 000 bytes: over the app's 1 024-byte bodyLimit, within the gateway's 8 KiB.
    const big = await fetch(`${origin}/gateway/v1/invoke`, {
      method: 'POST',
      headers,
      body: JSON.stringify(
        invokeBody('lookup-account', { accountId: 'a1', note: 'x'.repeat(3000) }),
      ),
    });
    expect(big.status).toBe(200);
    expect(await big.json()).toMatchObject({ status: 'completed', outputText: 'Account a1' });
    const malformed = await fetch(`${origin}/gateway/v1/invoke`, {
      method: 'POST',
      headers,
      body: '{',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: 'malformed_json' } });
    const tooLarge = await fetch(`${origin}/gateway/v1/invoke`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ padding: 'x'.repeat(10_000) }),
    });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ error: { code: 'payload_too_large' } });
    const text = await fetch(`${origin}/gateway/v1/invoke`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ error: { code: 'unsupported_media_type' } });
  });

  it('answers a Content-Type Fastify cannot parse as the gateway does: 401 first, then 415', async () => {
    const body = JSON.stringify(invokeBody('lookup-account', { accountId: 'a1' }));
    const anonymous = await rawRequest(origin, '/gateway/v1/invoke', {
      method: 'POST',
      headers: { 'content-type': 'not a media type' },
      body,
    });
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.text)).toMatchObject({ error: { code: 'unauthorized' } });
    const authorized = await rawRequest(origin, '/gateway/v1/invoke', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'not a media type' },
      body,
    });
    expect(authorized.status).toBe(415);
    expect(JSON.parse(authorized.text)).toMatchObject({
      error: { code: 'unsupported_media_type' },
    });
  });

  it('answers unknown paths and methods under the prefix with contract envelopes', async () => {
    const unknown = await fetch(`${origin}/gateway/v1/nothing`, { headers });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'not_found' } });
    const wrongMethod = await fetch(`${origin}/gateway/v1/invoke`, { headers });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    const root = await fetch(`${origin}/gateway`, { headers });
    expect(root.status).toBe(404);
    expect(await root.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('answers methods Fastify does not route, and QUERY without a Content-Type, as the gateway does', async () => {
    // serve() answers both 405 with the route's Allow; Fastify would answer its own 404 and 400.
    for (const method of ['PROPFIND', 'MKCOL', 'QUERY']) {
      const answer = await rawRequest(origin, '/gateway/v1/manifest', {
        method,
        headers: { authorization: headers.authorization },
      });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow, method).toBe('GET');
      expect(answer.headers['content-type'], method).toBe('application/json');
      expect(JSON.parse(answer.text), method).toEqual({
        error: {
          code: 'method_not_allowed',
          message: 'Method not allowed on this route.',
          retryable: false,
        },
      });
    }
    // Outside the prefix the app's own not-found answer stays.
    const outside = await rawRequest(origin, '/elsewhere', { method: 'PROPFIND' });
    expect(outside.status).toBe(404);
    expect(JSON.parse(outside.text)).toMatchObject({ error: 'Not Found', statusCode: 404 });
  });

  it('keeps the connection of a request without a body that it answers at once', async () => {
    const token = { authorization: headers.authorization };
    for (const [path, status] of [
      ['/gateway/v1/manifest', 200],
      ['/gateway/v1/nothing', 404],
      ['/gateway/v1/invoke', 405],
    ] as const) {
      const answer = await rawRequest(origin, path, { headers: token });
      expect(answer.status).toBe(status);
      expect(answer.headers.connection).toBe('keep-alive');
    }
  });

  it('serves nothing outside the prefix, even through dot segments', async () => {
    const outside = await fetch(`${origin}/v1/manifest`, { headers });
    expect(outside.status).toBe(404);
    expect(await outside.text()).not.toContain('"actions"');
    const dotted = await rawRequest(origin, '/gateway/../v1/manifest', { headers });
    expect(dotted.status).toBe(404);
    expect(dotted.text).not.toContain('"actions"');
  });

  it("leaves the app's own routes and hooks alone", async () => {
    const note = await fetch(`${origin}/api/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello' }),
    });
    expect(note.status).toBe(201);
    expect(await note.json()).toEqual({ saved: { text: 'hello' } });
    // Fastify's own JSON parser and bodyLimit still guard the app's routes.
    const big = await fetch(`${origin}/api/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(2000) }),
    });
    expect(big.status).toBe(413);
    // The app's onSend hook ran on the gateway's replies too.
    const manifest = await fetch(`${origin}/gateway/v1/manifest`, { headers });
    expect(manifest.headers.get('x-app-hook')).toBe('ran');
  });

  it('answers 413 to a chunked body over the limit without buffering it all, and closes the connection', async () => {
    const { port } = new URL(origin);
    const result = await new Promise<{ status: number; connection: string | undefined }>(
      (resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: '/gateway/v1/invoke', method: 'POST', headers },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode!, connection: res.headers.connection });
          },
        );
        req.on('error', reject);
        const chunk = 'x'.repeat(1024);
        let sent = 0;
        const pump = () => {
          while (sent < 1000 && req.write(chunk)) sent++;
          if (sent < 1000) req.once('drain', pump);
          else req.end();
        };
        pump();
      },
    );
    expect(result).toEqual({ status: 413, connection: 'close' });
  });

  it('aborts the running action when the client disconnects', async () => {
    const before = aborted;
    const controller = new AbortController();
    const started = new Promise<void>((resolve) => {
      actionRunning = resolve;
    });
    const pending = fetch(`${origin}/gateway/v1/invoke`, {
      method: 'POST',
      headers,
      body: JSON.stringify(invokeBody('wait-for-abort', {})),
      signal: controller.signal,
    }).catch(() => 'aborted');
    await started;
    controller.abort();
    expect(await pending).toBe('aborted');
    await expect.poll(() => aborted, { timeout: 1000 }).toBe(before + 1);
  });
});

describe('fastifyGateway options and lifecycle', () => {
  it('closes the gateway when the app closes, unless told not to', async () => {
    const closing = fixtureGateway();
    const close = vi.spyOn(closing, 'close');
    const kept = fixtureGateway();
    const keptClose = vi.spyOn(kept, 'close');
    const app = Fastify();
    await app.register(fastifyGateway, { gateway: closing, prefix: '/a' });
    await app.register(fastifyGateway, { gateway: kept, prefix: '/b', closeGateway: false });
    await app.ready();
    expect(close).not.toHaveBeenCalled();
    await app.close();
    expect(close).toHaveBeenCalledTimes(1);
    expect(keptClose).not.toHaveBeenCalled();
    await kept.close();
  });

  it("answers Fastify's app.inject() as it answers the network", async () => {
    const app = Fastify();
    await app.register(fastifyGateway, { gateway: fixtureGateway(), prefix: '/gateway' });
    const completed = await app.inject({
      method: 'POST',
      url: '/gateway/v1/invoke',
      headers: { authorization: `Bearer ${TOKEN}` },
      payload: invokeBody('lookup-account', { accountId: 'a1' }),
    });
    expect(completed.statusCode).toBe(200);
    expect(completed.json()).toMatchObject({ status: 'completed' });
    // Answered before the body is read: no socket to protect, so nothing is drained or closed.
    const refused = await app.inject({
      method: 'POST',
      url: '/gateway/v1/invoke',
      payload: invokeBody('lookup-account', { accountId: 'a1' }),
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers.connection).toBe('keep-alive');
    await app.close();
  });

  it('refuses what is not a gateway, and drain limits that are not non-negative integers', async () => {
    await expect(
      Fastify()
        .register(fastifyGateway, { gateway: {} as never })
        .ready(),
    ).rejects.toThrow(/createGateway/);
    await expect(
      Fastify().register(fastifyGateway, { gateway: fixtureGateway(), drainMaxBytes: -1 }).ready(),
    ).rejects.toThrow(GatewayConfigError);
  });

  it.each([
    ['drainMaxBytes', [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '1024', null]],
    ['drainTimeoutMs', [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, 2 ** 53, '5000']],
    ['closeGateway', ['false', 0]],
    ['pinCallbackAddresses', ['false', 0]],
    ['allowedHosts', ['gw.example.test', false, null]],
  ] as const)(
    'refuses every wrong %s with a GatewayConfigError naming it',
    async (option, values) => {
      for (const value of values) {
        const gateway = fixtureGateway();
        const app = Fastify().register(fastifyGateway, { gateway, [option]: value } as never);
        const refused = app.ready();
        await expect(refused, String(value)).rejects.toThrow(GatewayConfigError);
        await expect(refused).rejects.toThrow(new RegExp(`^fastifyGateway: ${option} is `));
        await gateway.close();
      }
    },
  );

  it('refuses an unknown option by name (a misspelt prefix would serve the gateway at the root)', async () => {
    const gateway = fixtureGateway();
    const refused = Fastify()
      .register(fastifyGateway, { gateway, prefixx: '/gateway' } as never)
      .ready();
    await expect(refused).rejects.toThrow(GatewayConfigError);
    await expect(refused).rejects.toThrow(
      /^fastifyGateway: unknown option "prefixx" \(known: gateway, .*prefix, logLevel, logSerializers\)\.$/,
    );
    const misnamed = Fastify()
      .register(fastifyGateway, { gatway: gateway } as never)
      .ready();
    await expect(misnamed).rejects.toThrow(/^fastifyGateway: unknown option "gatway"/);
    // Fastify's own register options still pass.
    const app = Fastify();
    await app.register(fastifyGateway, { gateway, prefix: '/gateway', logLevel: 'warn' });
    await app.ready();
    await app.close();
  });

  it('takes the edges of the drain limits: 0 bytes, 0 ms and the longest timer', async () => {
    for (const limits of [
      { drainMaxBytes: 0, drainTimeoutMs: 0 },
      { drainMaxBytes: Number.MAX_SAFE_INTEGER, drainTimeoutMs: 2 ** 31 - 1 },
    ]) {
      const app = Fastify();
      await app.register(fastifyGateway, { gateway: fixtureGateway(), ...limits });
      await app.ready();
      await app.close();
    }
  });

  it('follows Fastify trustProxy for the URLs it answers', async () => {
    const forwarded = {
      ...headers,
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'gw.example',
    };
    for (const trustProxy of [false, true]) {
      const { app, origin } = await startApp(
        (a) =>
          a.register(fastifyGateway, {
            gateway: fixtureGateway({ gateway: { id: 'acme', name: 'Acme' } }),
            prefix: '/gateway',
          }),
        { trustProxy },
      );
      const manifest = await fetch(`${origin}/gateway/v1/manifest`, { headers: forwarded });
      expect(((await manifest.json()) as { gateway: { url: string } }).gateway.url).toBe(
        trustProxy ? 'https://gw.example/gateway' : `${origin}/gateway`,
      );
      await app.close();
    }
  });

  it('refuses a foreign Host on a loopback server (DNS rebinding) unless allowed', async () => {
    const { app, origin } = await startApp((a) =>
      a.register(fastifyGateway, { gateway: fixtureGateway(), prefix: '/gateway' }),
    );
    const rebound = await rawRequest(origin, '/gateway/v1/manifest', {
      headers: { ...headers, host: 'attacker.example' },
    });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.text)).toMatchObject({ error: { code: 'forbidden_host' } });
    const fromPage = await rawRequest(origin, '/gateway/v1/manifest', {
      headers: { ...headers, origin: 'https://attacker.example' },
    });
    expect(fromPage.status).toBe(403);
    await app.close();
    const allowing = await startApp((a) =>
      a.register(fastifyGateway, {
        gateway: fixtureGateway(),
        prefix: '/gateway',
        allowedHosts: ['gw.example.test'],
      }),
    );
    const named = await rawRequest(allowing.origin, '/gateway/v1/manifest', {
      headers: { ...headers, host: 'gw.example.test' },
    });
    expect(named.status).toBe(200);
    await allowing.app.close();
  });

  it('serves the operators’ approvals API, query string included', async () => {
    const gateway = fixtureGateway();
    const approvals = createApprovalsHandler(gateway, { auth: { tokens: ['operator-token'] } });
    const { app, origin } = await startApp((a) =>
      a.register(fastifyGateway, { gateway: approvals, prefix: '/operator/api' }),
    );
    const list = await fetch(`${origin}/operator/api/approvals?status=approved&limit=5`, {
      headers: { authorization: 'Bearer operator-token' },
    });
    expect(list.status).toBe(200);
    expect(await list.json()).toMatchObject({ approvals: [] });
    const badQuery = await fetch(`${origin}/operator/api/approvals?status=nonsense`, {
      headers: { authorization: 'Bearer operator-token' },
    });
    expect(badQuery.status).toBe(422);
    await app.close();
    await gateway.close();
  });
});

describe('fastifyLogger', () => {
  it("writes the gateway's lines to Fastify's logger, errors serialised, tokens never", async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const app = Fastify({ logger: { level: 'info', stream } });
    const gateway = fixtureGateway({ logger: fastifyLogger(app.log) });
    await app.register(fastifyGateway, { gateway, prefix: '/gateway' });
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    const answer = await fetch(`${origin}/gateway/v1/invoke`, {
      method: 'POST',
      headers,
      body: JSON.stringify(invokeBody('misbehave', { mode: 'throw' })),
    });
    expect(answer.status).toBe(500);
    await app.close();
    const failure = lines.find((line) => line.level === 50);
    expect(failure).toMatchObject({
      err: { message: expect.any(String), stack: expect.any(String) },
    });
    // Fastify's own request log covers the gateway's routes.
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'request completed', res: { statusCode: 500 } }),
    );
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });
});

describe('fastifyGateway and HTTP/1.1 pipelining', () => {
  it('closes a connection that pipelines more than 16 requests ahead of its answers, as the Node adapter does', async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let runs = 0;
    const held = defineAction({
      id: 'held',
      input: v.object({}),
      run: async () => {
        runs += 1;
        await gate;
        return { outputText: 'ok' };
      },
    });
    const gateway = fixtureGateway({ actions: [held] });
    const { app, origin } = await startApp((fastify) =>
      fastify.register(fastifyGateway, { gateway, prefix: '/gateway' }),
    );
    try {
      const { port } = new URL(origin);
      const accepted = once(app.server, 'connection') as Promise<[Socket]>;
      const client = connect(Number(port), '127.0.0.1');
      client.on('error', () => {});
      const [serverSide] = await accepted;
      const body = JSON.stringify(invokeBody('held'));
      const request =
        `POST /gateway/v1/invoke HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      client.write(request.repeat(200));
      client.pause();
      await once(serverSide, 'close');
      expect(runs).toBe(17); // the one answered, and 16 queued behind it; before: all 200
      open();
      client.destroy();
    } finally {
      await app.close();
    }
  });
});

describe('fastifyGateway with the server options docs/examples.md gives Fastify', () => {
  it('answers a body trickled past requestTimeout with the 408 envelope and closes the connection', async () => {
    // Fastify's default requestTimeout is 0: such a body held the connection for ever. Fastify sets
    // requestTimeout after creating the server, where Node enforces it only with a headersTimeout
    // no longer than it: hence `http.headersTimeout` (and a quicker check than Node's 30 s).
    const gateway = fixtureGateway({ actions: [report] });
    const serverOptions: FastifyHttpOptions<Server> = {
      requestTimeout: 300,
      http: { headersTimeout: 300, connectionsCheckingInterval: 50 },
      clientErrorHandler: answerClientError,
    };
    const { app, origin } = await startApp(
      (fastify) => fastify.register(fastifyGateway, { gateway, prefix: '/gateway' }),
      serverOptions,
    );
    try {
      const { port } = new URL(origin);
      const client = connect(Number(port), '127.0.0.1');
      client.on('error', () => {});
      client.write(
        `POST /gateway/v1/invoke HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
      );
      // One byte every 20 ms: the connection is never idle, the body never complete.
      const trickle = setInterval(() => client.write(' '), 20);
      let answer = '';
      client.setEncoding('utf8');
      client.on('data', (chunk: string) => {
        answer += chunk;
      });
      const started = Date.now();
      await once(client, 'close');
      clearInterval(trickle);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
        error: { code: 'request_timeout', retryable: true },
      });
    } finally {
      await app.close();
    }
  });
});

describe('fastifyGateway shut down as docs/examples.md does', () => {
  it('lets a job still running after app.close() end before the gateway closes', async () => {
    let finish: () => void = () => {};
    const release = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slowReport = defineAction({
      id: 'slow-report',
      input: v.object({}),
      executionMode: 'async',
      run: async () => {
        started();
        await release;
        return { outputText: 'done' };
      },
    });
    const states: string[] = [];
    const gateway = fixtureGateway({
      actions: [slowReport],
      hooks: { onJobStateChanged: (event) => void states.push(event.status) },
    });
    const { app, origin } = await startApp((fastify) =>
      fastify.register(fastifyGateway, { gateway, prefix: '/gateway', closeGateway: false }),
    );
    const accepted = await fetch(`${origin}/gateway/v1/invoke`, {
      method: 'POST',
      headers,
      body: JSON.stringify(invokeBody('slow-report')),
    });
    expect(await accepted.json()).toMatchObject({ status: 'accepted' });
    await running;
    // The SIGTERM handler of the docs: app.close(), gateway.idle() (bounded), gateway.close().
    await app.close();
    expect(states).toEqual(['queued', 'running']);
    const idle = gateway.idle();
    finish();
    await idle;
    await gateway.close();
    expect(states).toEqual(['queued', 'running', 'completed']);
  });
});
