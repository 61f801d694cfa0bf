import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { lookupAccount } from '../../test/fixture-gateway.ts';
import { defineAction } from '../actions/define-action.ts';
import { CallbackDispatcher } from '../callbacks/callback-dispatcher.ts';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';
import { createGateway, type GatewayOptions } from './create-gateway.ts';

const quiet = { error: () => {}, warn: () => {} };
const base = {
  gateway: { id: 'g', name: 'G' },
  actions: [lookupAccount],
  auth: { tokens: ['t0ken'] },
  logger: quiet,
};

/** What a JavaScript caller (no type checking) would get from createGateway. */
function messageFor(options: unknown): string {
  try {
    createGateway(options as GatewayOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayConfigError);
    return (error as Error).message;
  }
  throw new Error('createGateway accepted the options');
}

describe('createGateway names the exact path and the kind of value it received', () => {
  it('an unset environment variable in a token rotation', () => {
    const env: Record<string, string | undefined> = { GATEWAY_TOKEN: 'current-token' };
    expect(
      messageFor({ ...base, auth: { tokens: [env.GATEWAY_TOKEN, env.GATEWAY_TOKEN_NEXT] } }),
    ).toBe(
      'createGateway: auth.tokens[1] is undefined: is an environment variable unset? (expected a non-empty token string)',
    );
  });

  it.each([
    [{ auth: { tokens: [''] } }, 'auth.tokens[0] is an empty string'],
    [
      { auth: { tokens: [] } },
      'auth.tokens is an empty array: is an environment variable unset? (expected a list of at least one token)',
    ],
    [
      { auth: { tokens: ['ok', ' spaced '] } },
      'auth.tokens[1] is a string with surrounding spaces',
    ],
    [
      { auth: { tokens: [{ token: 'x', principal: 'svc' }] } },
      'auth.tokens[0].principal is a string',
    ],
    // A token or secret read as a number (unquoted in a YAML file) is not printed.
    [
      { auth: { tokens: [{ token: 8675309123, principal: { id: 'p' } }] } },
      'auth.tokens[0].token is a number: expected a non-empty token string.',
    ],
    [{ auth: { tokens: [8675309123] } }, 'auth.tokens[0] is a number: expected'],
    [{ callbacks: { signingSecret: 8675309123 } }, 'callbacks.signingSecret is a number: expected'],
    [{ auth: { tokens: 'one-token' } }, 'auth.tokens is a string: expected a list'],
    [{ auth: { verify: 'yes' } }, 'auth.verify is a string: expected a function'],
    [{ auth: undefined }, 'auth is undefined'],
    [{ gateway: { id: 'g' } }, 'gateway.name is undefined'],
    [{ agent: { name: 'Acme' } }, 'agent.id is undefined: is an environment variable unset?'],
    [
      { hooks: { onInvoke: () => {} } },
      'hooks.onInvoke is not a known hook (known: onInvokeReceived',
    ],
    [{ hooks: { slowHookMs: 0 } }, 'hooks.slowHookMs is the number 0: expected a positive number'],
    [{ logger: { error: () => {}, warn: 'x' } }, 'logger.warn is a string: expected a function.'],
    [{ tracer: {} }, 'tracer is an object: expected an OpenTelemetry Tracer'],
    [{ gateway: { id: 'g', name: 'G', url: 42 } }, 'gateway.url is a number'],
    // The manifest and every job's URLs would publish them.
    [
      { gateway: { id: 'g', name: 'G', url: 'https://ops:pa55word@gw.example' } },
      'gateway.url is a string: expected an absolute http(s) URL without credentials.',
    ],
    [{ agent: 'acme-agent' }, 'agent is a string'],
    [
      { actions: [lookupAccount, undefined] },
      'actions[1] is undefined: expected a defineAction() result',
    ],
    [{ actions: lookupAccount }, 'actions is an object: expected an array'],
    [{ version: 20261122 }, 'version is the number 20261122'],
    [{ maxBodyBytes: '1mb' }, 'maxBodyBytes is a string: expected a positive integer'],
    [{ idempotencyTtlMs: -1 }, 'idempotencyTtlMs is the number -1'],
    [{ approvals: { ttlMs: '15m' } }, 'approvals.ttlMs is a string'],
    [{ approvals: { policy: true } }, 'approvals.policy is true: expected a function'],
    [{ approvals: { sweepIntervalMs: -5 } }, 'approvals.sweepIntervalMs is the number -5'],
    [{ logger: console.error }, 'logger is a function'],
    [
      { jobStore: new Map() },
      'jobStore is a Map instance: expected a JobStore (missing create, update',
    ],
    [{ recordStore: {} }, 'recordStore is an object: expected a RecordStore'],
    [{ callbacks: true }, 'callbacks is true'],
    [{ callbacks: { urlPolicy: 'loopback' } }, 'callbacks.urlPolicy is a string'],
    [{ callbacks: { signingSecret: '' } }, 'callbacks.signingSecret is an empty string'],
    [
      { callbacks: { signingSecret: undefined } },
      'callbacks.signingSecret is undefined: is an environment variable unset?',
    ],
    [
      { callbacks: { signingSecret: 'whsec_not base64!' } },
      "callbacks.signingSecret is a string: expected 'whsec_' and base64.",
    ],
    [
      { callbacks: { maxAttempts: 0 } },
      'callbacks.maxAttempts is the number 0: expected a positive integer.',
    ],
    [
      { callbacks: { urlPolicy: { allowHosts: ['bad host'] } } },
      'callbacks.allowHosts is an array: expected host names or IP addresses (an entry is neither).',
    ],
    [{ waitUntil: 'ctx' }, 'waitUntil is a string: expected a function'],
  ])('%o → %s', (override, expected) => {
    expect(messageFor({ ...base, ...override })).toContain(`createGateway: ${expected}`);
  });

  it('refuses a CallbackDispatcher instance as `callbacks` and says what to pass instead', () => {
    const dispatcher = new CallbackDispatcher({ urlPolicy: { allowInsecureLoopback: true } });
    expect(messageFor({ ...base, callbacks: dispatcher })).toBe(
      'createGateway: callbacks is a CallbackDispatcher instance: expected false or an options object such as { signingSecret, urlPolicy } (the gateway creates its own dispatcher).',
    );
  });

  it('refuses an unknown option, which would otherwise be ignored', () => {
    expect(messageFor({ ...base, callback: { signingSecret: 'whsec_x' } })).toMatch(
      /^createGateway: unknown option "callback" \(known: .*callbacks/,
    );
  });

  it('names every unknown option at once, before checking the known ones', () => {
    expect(messageFor({ gatway: base.gateway, actions: [], auth: base.auth, tokens: [] })).toMatch(
      /^createGateway: unknown options "gatway", "tokens" \(known: gateway, /,
    );
  });

  it.each([
    [
      // A misspelt signing secret would send every callback unsigned.
      { callbacks: { signingSecrt: 'whsec_c2VjcmV0LXZhbHVlLW5vdC1zaG93bg==' } },
      'createGateway: callbacks: unknown option "signingSecrt" (known: signingSecret, urlPolicy, ',
    ],
    [
      { gateway: { id: 'g', nmae: 'G' } },
      'createGateway: gateway: unknown option "nmae" (known: id, name, url).',
    ],
    [
      { agent: { id: 'a', name: 'A', descripton: 'x' } },
      'createGateway: agent: unknown option "descripton" (known: id, name, description).',
    ],
    [
      { approvals: { ttl: 5 } },
      'createGateway: approvals: unknown option "ttl" (known: policy, ttlMs, retentionMs, sweepIntervalMs).',
    ],
  ])('refuses an unknown nested option, naming it and never the values: %o', (options, start) => {
    const message = messageFor({ ...base, ...options });
    expect(message.startsWith(start)).toBe(true);
    expect(message).not.toContain('c2VjcmV0');
  });

  it('refuses tokens and verify together', () => {
    expect(messageFor({ ...base, auth: { tokens: ['t'], verify: () => null } })).toContain(
      'auth has both tokens and verify',
    );
  });

  it('never puts a token, a secret or any other configured string in the message', () => {
    const messages = [
      messageFor({ ...base, auth: { tokens: ['ok', ' spaced-secret-token '] } }),
      messageFor({ ...base, callbacks: { signingSecret: '   ' } }),
      messageFor({ ...base, gateway: { id: 'g', name: 'G', url: 'not a url with secret-path' } }),
    ];
    for (const message of messages) expect(message).not.toMatch(/secret/);
  });
});

describe('checks a manifest cannot publish', () => {
  const coerce = defineAction({
    id: 'count',
    input: v.strictObject({
      count: v.pipe(v.string(), v.transform(Number), v.number(), v.minValue(1)),
      label: v.pipe(
        v.string(),
        v.regex(/^\w+$/),
        v.transform((s) => s.toUpperCase()),
      ),
    }),
    run: () => ({}),
  });

  it('warns once per field that validates after a transform, naming action and path', () => {
    const logger = { error: vi.fn(), warn: vi.fn() };
    const gateway = createGateway({ ...base, actions: [coerce], logger });
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]?.[0]).toMatch(
      /^Action "count": input\.count validates after a transform; the manifest publishes only what comes before it\./,
    );
    // What is published: the raw input type, the later checks are not in the manifest.
    expect(gateway.manifest.actions[0]?.inputSchema).toMatchObject({
      properties: { count: { type: 'string' } },
    });
  });

  it('says nothing for transforms at the end of a pipe', () => {
    const logger = { error: vi.fn(), warn: vi.fn() };
    createGateway({ ...base, logger });
    expect(logger.warn).not.toHaveBeenCalled();
    expect(logger.error).not.toHaveBeenCalled();
  });
});
