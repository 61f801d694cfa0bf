// (b) The same gateway as a Hono app on @hono/node-server, written the idiomatic Hono way
// (bearerAuth middleware, validator middleware, c.json). Two configurations (argv[2]):
// - `defaults`: `bearerAuth({ token })` as Hono's docs show it first; it hashes both the presented
//   and the configured token with Web Crypto SHA-256 on every request (a thread-pool round trip).
// - `hash`: `bearerAuth({ token, hashFunction })` with a synchronous SHA-256 from node:crypto, the
//   option Hono documents for exactly this; the fair configuration for speed on Node.
import { createHash } from 'node:crypto';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { validator } from 'hono/validator';
import * as v from 'valibot';
import {
  envelope,
  InvokeRequest,
  LookupInput,
  RESPONSE_HEADERS,
  runLookup,
  TOKEN,
} from '../fixtures.mjs';
import { announce } from './announce.mjs';

const variant = process.argv[2] ?? 'hash';
const auth =
  variant === 'defaults'
    ? { token: TOKEN }
    : { token: TOKEN, hashFunction: (value) => createHash('sha256').update(value).digest('hex') };

const refuse = (c, status, code, message) =>
  c.body(envelope(code, message), status, { 'content-type': 'application/json' });

const app = new Hono();
app.use('/v1/*', bearerAuth(auth));
app.post(
  '/v1/invoke',
  validator('json', (value, c) => {
    const request = v.safeParse(InvokeRequest, value);
    if (!request.success) return refuse(c, 422, 'invalid_request', 'Invalid request.');
    if (request.output.action.id !== 'lookup-account') {
      return refuse(c, 422, 'unknown_action', 'Unknown action.');
    }
    const input = v.safeParse(LookupInput, request.output.action.input);
    if (!input.success) return refuse(c, 422, 'invalid_input', 'Invalid input.');
    return input.output;
  }),
  async (c) => {
    c.header('cache-control', RESPONSE_HEADERS['cache-control']);
    return c.json({ status: 'completed', ...(await runLookup(c.req.valid('json'))) });
  },
);

announce(createAdaptorServer({ fetch: app.fetch, serverOptions: { keepAliveTimeout: 65_000 } }));
