// The load generator of `pnpm bench`, in its own process (pinned to its own core by run.mjs).
// Closed loop: `connections` keep-alive HTTP/1.1 connections, each sending the next request as
// soon as the previous answer is complete (no pipelining), for `seconds`. Every answer's status
// and body bytes are compared with the verified ones; latency is measured per request with
// `performance.now()` (sub-microsecond resolution) and reported as exact percentiles in µs.
//
// Run by run.mjs over IPC: it sends { url, seconds, connections, body, headers, expectBody } (or
// `expectPrefix`, for answers that differ per request, such as accepted jobs) and gets back { requests, seconds, rps, latencyUs: { p50, p90, p99, p999, max }, bad }.
import { connect } from 'node:net';

const CRLF_CRLF = Buffer.from('\r\n\r\n');

function requestBytes(url, headers, body) {
  const head = [`POST ${url.pathname} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
  head.push(`content-length: ${Buffer.byteLength(body)}`);
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), Buffer.from(body)]);
}

/**
 * Parses one complete response at the start of `buffer`: `{ status, body, length }` or `undefined`
 * while it is incomplete. Handles `content-length` and `transfer-encoding: chunked`.
 */
function parseResponse(buffer) {
  const headEnd = buffer.indexOf(CRLF_CRLF);
  if (headEnd < 0) return undefined;
  const head = buffer.toString('latin1', 0, headEnd).toLowerCase();
  const status = Number(head.slice(9, 12));
  const bodyStart = headEnd + 4;
  const lengthAt = head.indexOf('\r\ncontent-length:');
  if (lengthAt >= 0) {
    const lineEnd = head.indexOf('\r\n', lengthAt + 2);
    const length = Number.parseInt(
      head.slice(lengthAt + 17, lineEnd < 0 ? undefined : lineEnd),
      10,
    );
    if (buffer.length < bodyStart + length) return undefined;
    return {
      status,
      body: buffer.subarray(bodyStart, bodyStart + length),
      length: bodyStart + length,
    };
  }
  if (!head.includes('\r\ntransfer-encoding: chunked'))
    return { status, body: Buffer.alloc(0), length: bodyStart };
  const parts = [];
  let at = bodyStart;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(buffer.toString('latin1', at, lineEnd), 16);
    if (buffer.length < lineEnd + 2 + size + 2) return undefined;
    if (size === 0) return { status, body: Buffer.concat(parts), length: lineEnd + 4 };
    parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** Exact percentile of sorted samples (nearest rank). */
const percentile = (sorted, count, p) =>
  sorted[Math.min(count - 1, Math.ceil((p / 100) * count) - 1)];

export async function run({ url, seconds, connections, body, headers, expectBody, expectPrefix }) {
  const target = new URL(url);
  const request = requestBytes(target, headers, body);
  const expected = Buffer.from(expectBody ?? expectPrefix);
  const matches =
    expectBody === undefined
      ? (answer) => answer.subarray(0, expected.length).equals(expected)
      : (answer) => answer.equals(expected);
  let samples = new Float64Array(1 << 20);
  let count = 0;
  let bad = 0;
  let stopping = false;
  const started = performance.now();
  const deadline = started + seconds * 1000;

  const record = (latency) => {
    if (count === samples.length) {
      const grown = new Float64Array(samples.length * 2);
      grown.set(samples);
      samples = grown;
    }
    samples[count++] = latency;
  };

  const connection = () =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: target.hostname, port: Number(target.port), noDelay: true });
      let pending = Buffer.alloc(0);
      let sentAt = 0;
      const send = () => {
        sentAt = performance.now();
        socket.write(request);
      };
      socket.once('connect', send);
      socket.on('data', (chunk) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        const response = parseResponse(pending);
        if (!response) return;
        const now = performance.now();
        pending = pending.subarray(response.length);
        if (response.status === 200 && matches(response.body)) record((now - sentAt) * 1000);
        else bad++;
        if (now >= deadline || stopping) {
          stopping = true;
          socket.end();
          return;
        }
        send();
      });
      socket.once('error', reject);
      socket.once('close', resolve);
    });

  await Promise.all(Array.from({ length: connections }, connection));
  const elapsed = (performance.now() - started) / 1000;
  const sorted = samples.subarray(0, count).sort();
  return {
    requests: count,
    seconds: elapsed,
    rps: count / elapsed,
    bad,
    latencyUs: {
      p50: percentile(sorted, count, 50),
      p90: percentile(sorted, count, 90),
      p99: percentile(sorted, count, 99),
      p999: percentile(sorted, count, 99.9),
      max: sorted[count - 1],
    },
  };
}

if (process.send) {
  process.on('message', async (job) => {
    try {
      process.send({ ok: true, result: await run(job) });
    } catch (error) {
      process.send({ ok: false, error: String(error?.stack ?? error) });
    }
  });
  process.on('disconnect', () => process.exit(0));
}
