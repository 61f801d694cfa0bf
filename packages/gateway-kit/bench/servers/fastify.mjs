// (d) The same gateway on Fastify 5, configured as Fastify's docs recommend for speed: logger off,
// a response schema (fast-json-stringify) for the 200 answer, the bearer check in an `onRequest`
// hook. Two ways to validate (argv[2]):
// - `schema`: a route JSON Schema compiled by Ajv at start-up, with type coercion and removal of
//   additional properties turned off (the contract rejects unknown keys; Fastify's defaults would
//   coerce and silently drop them);
// - `valibot`: the same valibot schemas as the other servers, in a `preHandler`.
import Fastify from 'fastify';
import * as v from 'valibot';
import {
  authorized,
  envelope,
  InvokeRequest,
  LookupInput,
  RESPONSE_HEADERS,
  runLookup,
} from '../fixtures.mjs';
import { reportPort } from './announce.mjs';

const variant = process.argv[2] ?? 'schema';

const id = { type: 'string', minLength: 1, maxLength: 1024 };
const strict = (properties, required) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
/** JSON Schema twin of fixtures.mjs `InvokeRequest` with the action's input inlined. */
const bodySchema = strict(
  {
    invocationId: id,
    idempotencyKey: id,
    traceId: { type: 'string', maxLength: 1024 },
    deadlineAt: { type: 'string', format: 'date-time' },
    meeting: strict({ id, roomName: { type: 'string', maxLength: 1024 } }, ['id', 'roomName']),
    session: strict({ id, mode: { enum: ['active', 'passive', 'listening'] } }, ['id', 'mode']),
    action: strict(
      {
        input: {
          type: 'object',
          properties: {
            accountId: { type: 'string', minLength: 1, maxLength: 64 },
            fields: { type: 'array', items: { enum: ['status', 'owner', 'plan', 'region'] } },
            includeHistory: { type: 'boolean' },
          },
          required: ['accountId', 'fields'],
        },
        id: { const: 'lookup-account' },
        name: id,
      },
      ['input', 'id'],
    ),
    context: { type: 'object' },
    callbacks: strict(
      {
        jobResultUrl: { type: 'string', format: 'uri', maxLength: 2048 },
        approvalUrl: { type: 'string', format: 'uri', maxLength: 2048 },
        authorization: { type: 'string', maxLength: 8192 },
      },
      [],
    ),
  },
  ['invocationId', 'meeting', 'session', 'action', 'context', 'callbacks'],
);
/** The 200 answer, properties in the order every server writes them. */
const completedSchema = {
  type: 'object',
  properties: {
    status: { type: 'string' },
    outputText: { type: 'string' },
    data: {
      type: 'object',
      properties: {
        accountId: { type: 'string' },
        status: { type: 'string' },
        owner: { type: 'string' },
        plan: { type: 'string' },
      },
    },
  },
};

const app = Fastify({
  logger: false,
  keepAliveTimeout: 65_000,
  bodyLimit: 1024 * 1024,
  ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
});

const refuse = (reply, status, code, message) =>
  reply.code(status).type('application/json').send(envelope(code, message));

app.addHook('onRequest', async (request, reply) => {
  if (!authorized(request.headers.authorization)) {
    return refuse(reply, 401, 'unauthorized', 'Missing or invalid bearer token.');
  }
});
app.setErrorHandler((error, _request, reply) => {
  if (error.validation) return refuse(reply, 422, 'invalid_request', 'Invalid request.');
  if (error.statusCode === 413) return refuse(reply, 413, 'payload_too_large', 'Too large.');
  if (error.statusCode === 415) {
    return refuse(reply, 415, 'unsupported_media_type', 'Expected application/json.');
  }
  return refuse(reply, 400, 'malformed_json', 'The request body is not valid JSON.');
});
app.setNotFoundHandler((_request, reply) => refuse(reply, 404, 'not_found', 'Not found.'));

const validateWithValibot = async (request, reply) => {
  const parsed = v.safeParse(InvokeRequest, request.body);
  if (!parsed.success) return refuse(reply, 422, 'invalid_request', 'Invalid request.');
  if (parsed.output.action.id !== 'lookup-account') {
    return refuse(reply, 422, 'unknown_action', 'Unknown action.');
  }
  const input = v.safeParse(LookupInput, parsed.output.action.input);
  if (!input.success) return refuse(reply, 422, 'invalid_input', 'Invalid input.');
  request.body.action.input = input.output;
};

app.post(
  '/v1/invoke',
  {
    schema: {
      ...(variant === 'schema' ? { body: bodySchema } : {}),
      response: { 200: completedSchema },
    },
    ...(variant === 'valibot' ? { preHandler: validateWithValibot } : {}),
  },
  async (request, reply) => {
    reply.headers(RESPONSE_HEADERS);
    return { status: 'completed', ...(await runLookup(request.body.action.input)) };
  },
);

await app.listen({ port: 0, host: '127.0.0.1' });
reportPort(app.server.address().port);
