// (a) Baseline: what a careful team writes by hand on node:http, with no framework and no kit.
import { createServer } from 'node:http';
import * as v from 'valibot';
import {
  authorized,
  envelope,
  InvokeRequest,
  LookupInput,
  RESPONSE_HEADERS,
  runLookup,
} from '../fixtures.mjs';
import { announce } from './announce.mjs';

const MAX_BODY = 1024 * 1024;
function send(res, status, body) {
  res.writeHead(status, { ...RESPONSE_HEADERS, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function handle(res, bytes) {
  let body;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    return send(res, 400, envelope('malformed_json', 'The request body is not valid JSON.'));
  }
  const request = v.safeParse(InvokeRequest, body);
  if (!request.success) return send(res, 422, envelope('invalid_request', 'Invalid request.'));
  if (request.output.action.id !== 'lookup-account') {
    return send(res, 422, envelope('unknown_action', 'Unknown action.'));
  }
  const input = v.safeParse(LookupInput, request.output.action.input);
  if (!input.success) return send(res, 422, envelope('invalid_input', 'Invalid input.'));
  const result = await runLookup(input.output);
  send(res, 200, JSON.stringify({ status: 'completed', ...result }));
}

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/invoke') {
    return send(res, 404, envelope('not_found', 'Not found.'));
  }
  if (!authorized(req.headers.authorization)) {
    return send(res, 401, envelope('unauthorized', 'Missing or invalid bearer token.'));
  }
  if (!req.headers['content-type']?.startsWith('application/json')) {
    return send(res, 415, envelope('unsupported_media_type', 'Expected application/json.'));
  }
  const chunks = [];
  let total = 0;
  req.on('data', (chunk) => {
    total += chunk.length;
    if (total <= MAX_BODY) chunks.push(chunk);
  });
  req.on('end', () => {
    if (total > MAX_BODY) return send(res, 413, envelope('payload_too_large', 'Too large.'));
    handle(res, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  });
});

announce(server);
