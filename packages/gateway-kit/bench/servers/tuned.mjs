// (t) A hand-tuned node:http server: the same checks and answers as bare.mjs, written for speed by
// a team that knows the request shape. The reference for what doing this work can cost on
// node:http; only run when named (BENCH_SERVERS=t, or `node bench/paired.mjs bare tuned`).
// Against bare.mjs it swaps valibot's InvokeRequest for a check written out by hand (valibot
// still judges the rare optional `deadlineAt` and callback URLs, so the rules are the same),
// reads the two headers from `rawHeaders` (no headers object is built) and answers with a flat
// header list and the 200 body from a template.
import { createServer } from 'node:http';
import * as v from 'valibot';
import { authorized, envelope, LookupInput, runLookup } from '../fixtures.mjs';
import { announce } from './announce.mjs';
import { header, readBody, send, validRequest } from './hand-check.mjs';

const MAX_BODY = 1024 * 1024;

function handle(res, bytes) {
  let body;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    return send(res, 400, envelope('malformed_json', 'The request body is not valid JSON.'));
  }
  if (!validRequest(body)) return send(res, 422, envelope('invalid_request', 'Invalid request.'));
  if (body.action.id !== 'lookup-account') {
    return send(res, 422, envelope('unknown_action', 'Unknown action.'));
  }
  const input = v.safeParse(LookupInput, body.action.input);
  if (!input.success) return send(res, 422, envelope('invalid_input', 'Invalid input.'));
  Promise.resolve(runLookup(input.output)).then((result) =>
    send(
      res,
      200,
      `{"status":"completed","outputText":${JSON.stringify(result.outputText)},"data":${JSON.stringify(result.data)}}`,
    ),
  );
}

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/invoke') {
    return send(res, 404, envelope('not_found', 'Not found.'));
  }
  if (!authorized(header(req, 'authorization'))) {
    return send(res, 401, envelope('unauthorized', 'Missing or invalid bearer token.'));
  }
  if (!header(req, 'content-type')?.startsWith('application/json')) {
    return send(res, 415, envelope('unsupported_media_type', 'Expected application/json.'));
  }
  readBody(req, MAX_BODY, (bytes) =>
    bytes === undefined
      ? send(res, 413, envelope('payload_too_large', 'Too large.'))
      : handle(res, bytes),
  );
});

announce(server);
