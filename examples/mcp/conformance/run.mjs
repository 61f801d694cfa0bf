// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
// package.json) in server mode against this example, every scenario (`--suite all`), with the
// expected-failures baseline next to this file: any other failure, or a baseline entry that
// passes, fails the run.
//
// The suite's client sends no credentials, and the example's /mcp requires the gateway's bearer
// token; so the suite talks to a small proxy on loopback that adds `Authorization` and forwards
// everything else as sent (Host and Origin included, so the DNS-rebinding scenario reaches the
// example's own check). The suite opens a session per scenario and never closes it: the example
// runs with MCP_SESSIONS_PER_CALLER=64 for it (the default cap is 16).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const example = join(here, '..');
const token = `conformance-${randomBytes(16).toString('hex')}`;
const HOST = '127.0.0.1';

/** A port free right now on loopback. */
async function freePort() {
  const probe = createServer().listen(0, HOST);
  await once(probe, 'listening');
  const { port } = probe.address();
  probe.close();
  await once(probe, 'close');
  return port;
}

/** Starts the example and resolves once it listens. */
async function startExample(port) {
  const child = spawn(process.execPath, ['src/server.ts'], {
    cwd: example,
    env: {
      ...process.env,
      PORT: String(port),
      HOST,
      GATEWAY_TOKEN: token,
      MCP_SESSIONS_PER_CALLER: '64',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`example did not start:\n${output}`)), 30_000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`example exited (${code}):\n${output}`));
    });
  });
  child.stdout.resume();
  return child;
}

/** A proxy on loopback adding the bearer token; streams both ways (SSE included). */
async function startProxy(port, target) {
  const proxy = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    const upstream = request({
      host: HOST,
      port: target,
      method: req.method,
      path: req.url,
      headers,
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  proxy.listen(port, HOST);
  await once(proxy, 'listening');
  return proxy;
}

const [examplePort, proxyPort] = [await freePort(), await freePort()];
const child = await startExample(examplePort);
const proxy = await startProxy(proxyPort, examplePort);
const output = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
let code = 1;
try {
  const suite = spawn(
    process.execPath,
    [
      join(example, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
      'server',
      '--url',
      `http://${HOST}:${proxyPort}/mcp`,
      '--suite',
      'all',
      '--expected-failures',
      join(here, 'baseline.yml'),
      '--output-dir',
      output,
    ],
    { stdio: 'inherit' },
  );
  const timer = setTimeout(() => suite.kill('SIGTERM'), 240_000);
  [code] = await once(suite, 'exit');
  clearTimeout(timer);
} finally {
  proxy.close();
  proxy.closeAllConnections();
  child.kill('SIGTERM');
  // KEEP_RESULTS=1 keeps the suite's per-scenario checks.json files for a look.
  if (process.env.KEEP_RESULTS) console.log(`results kept in ${output}`);
  else rmSync(output, { recursive: true, force: true });
}
process.exit(code ?? 1);
