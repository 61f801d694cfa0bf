// Core behaviours shared by the Deno and Bun suites. They run against the built `dist`
// through a real HTTP server started by the runtime itself (Deno.serve / Bun.serve).
import assert from 'node:assert/strict';
import { createWorkspaceEmulator } from '../../dist/emulator.js';
import {
  AuthenticationError,
  createWorkspaceClient,
  defineDebrief,
  InternalServerError,
  NotFoundError,
  RateLimitError,
  WorkspaceApiError,
  WorkspaceConfigError,
  WorkspaceConnectionError,
  WorkspaceError,
  WorkspaceTimeoutError,
  WorkspaceValidationError,
} from '../../dist/index.js';

const KEY = 'wk_test_runtime_example';

/** A fresh emulator for one suite. */
export function createContext() {
  return { emulator: createWorkspaceEmulator() };
}

/**
 * Scenario name → async test body, given the server's base URL, its emulator, and the URL
 * of a port nothing listens on.
 */
export function scenarios({ baseUrl, closedUrl, emulator }) {
  const client = (options = {}) => createWorkspaceClient({ baseUrl, apiKey: KEY, ...options });
  return {
    async 'CRUD against the emulator'() {
      const c = client();
      const skill = await c.skills.upsert({ name: 'Runtime Skill', instructions: 'Be brief.' });
      assert.equal(skill.slug, 'runtime-skill');
      await c.agents.upsert({
        name: 'Agent',
        slug: 'agent',
        selectedSkillSlugs: ['runtime-skill'],
      });
      const debrief = defineDebrief({
        externalId: 'runtime:1',
        title: 'Runtime',
        pages: [{ title: 'P', html: '<p>hi</p>', speech: 'Hi' }],
      });
      const saved = await c.debriefs.upsert(debrief);
      assert.equal(saved.externalId, 'runtime:1');
      assert.deepEqual((await c.debriefs.get('runtime:1')).contract, debrief.contract);
      assert.equal((await c.debriefs.list()).length, 1);
      await c.skills.delete('runtime-skill');
      await c.agents.delete('agent');
      assert.deepEqual(await c.skills.list(), []);
      assert.deepEqual(await c.agents.list(), []);
    },

    async 'retries a 503 and succeeds'() {
      emulator.failNext({ status: 503, path: '/skills' });
      const retries = [];
      const c = client({ retry: { baseDelayMs: 20 }, onRetry: (event) => retries.push(event) });
      assert.deepEqual(await c.skills.list(), []);
      assert.equal(retries.length, 1);
      assert.ok(retries[0].error instanceof InternalServerError);
    },

    async 'honours Retry-After on a 429'() {
      emulator.failNext({ status: 429, path: '/debriefs', headers: { 'retry-after': '1' } });
      const started = Date.now();
      assert.ok(Array.isArray(await client().debriefs.list()));
      assert.ok(Date.now() - started >= 950, 'waited the Retry-After second');
    },

    async 'fails fast with RateLimitError when Retry-After exceeds the cap'() {
      emulator.failNext({ status: 429, headers: { 'retry-after': '120' } });
      const started = Date.now();
      const error = await client()
        .skills.list()
        .catch((e) => e);
      assert.ok(error instanceof RateLimitError);
      assert.equal(error.retryAfterMs, 120_000);
      assert.ok(Date.now() - started < 1000);
    },

    async 'maps errors to classes and keeps the key out of them'() {
      const missing = await client()
        .debriefs.get('nope')
        .catch((e) => e);
      assert.ok(missing instanceof NotFoundError && missing instanceof WorkspaceApiError);
      assert.equal(missing.status, 404);
      assert.match(missing.requestId, /^req_emu_/);
      emulator.failNext({
        status: 401,
        body: { error: { code: 'bad_key', message: `bad ${KEY}` } },
      });
      const auth = await client()
        .skills.list()
        .catch((e) => e);
      assert.ok(auth instanceof AuthenticationError);
      assert.ok(!JSON.stringify(auth).includes(KEY));
      assert.ok(!String(auth.stack).includes(KEY));
      const invalid = await client()
        .skills.upsert({ name: 'x', instructions: 'y', organizationId: 'org' })
        .catch((e) => e);
      assert.ok(invalid instanceof WorkspaceValidationError && invalid instanceof WorkspaceError);
      const down = await createWorkspaceClient({
        baseUrl: closedUrl,
        apiKey: KEY,
        retry: { limit: 1, baseDelayMs: 10 },
      })
        .skills.list()
        .catch((e) => e);
      assert.ok(down instanceof WorkspaceConnectionError);
      assert.ok(!JSON.stringify(down).includes(KEY));
    },

    async 'times out a success body that stalls after the headers'() {
      // This runtime's own Response and streams: 200 headers, then a body that never ends.
      const fetch = async () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('[{"name":'));
            },
          }),
          { status: 200, headers: { 'content-type': 'application/json' } },
        );
      const stalled = await client({ fetch, timeout: 200, retry: 0 })
        .skills.list()
        .catch((e) => e);
      assert.ok(stalled instanceof WorkspaceTimeoutError);
    },

    async 'refuses a key with a line break without quoting it'() {
      const refused = await client({ apiKey: async () => `${KEY}\r\n` })
        .skills.list()
        .catch((e) => e);
      assert.ok(refused instanceof WorkspaceConfigError);
      assert.equal(refused.cause, undefined);
      assert.ok(!String(refused.stack).includes(KEY));
    },
  };
}
