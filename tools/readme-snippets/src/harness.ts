// Preloaded (`node --import`) into every snippet run by the README test. It keeps snippets on
// loopback and observable, without changing their code:
// - fetch to https://svc.example.com (and to SVC_WORKSPACE_URL) goes to an in-process workspace
//   emulator; any other non-loopback address is refused;
// - every server a snippet starts listens on 127.0.0.1 on a free port (`serve(gateway,
//   { port: 8787 })` included), and its address is reported;
// - at exit, what the snippet stored in the emulator is reported.
// Reports are JSON lines appended to the file named by SNIPPET_REPORT.
import { appendFileSync } from 'node:fs';
import { Server } from 'node:net';
import { createWorkspaceEmulator } from '@svc/workspace-client/emulator';

const reportFile = process.env.SNIPPET_REPORT;
const report = (entry: object) => {
  if (reportFile) appendFileSync(reportFile, `${JSON.stringify(entry)}\n`);
};

export const EMULATED_ORIGIN = 'https://svc.example.com';
const emulator = createWorkspaceEmulator();
const emulated = new Set([EMULATED_ORIGIN]);
if (process.env.SVC_WORKSPACE_URL) emulated.add(new URL(process.env.SVC_WORKSPACE_URL).origin);
const loopback = new Set(['127.0.0.1', 'localhost', '[::1]']);

const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const request = new Request(input, init);
  const url = new URL(request.url);
  if (emulated.has(url.origin)) return emulator.handle(request);
  if (loopback.has(url.hostname)) return realFetch(request);
  throw new TypeError(`readme-snippets: network access to ${url.origin} is blocked`);
};

const realListen = Server.prototype.listen;
Server.prototype.listen = function listen(this: Server, ...args: unknown[]) {
  const [first] = args;
  if (typeof first === 'object' && first !== null) {
    args[0] = { ...first, port: 0, host: '127.0.0.1' };
  } else {
    args[0] = 0;
    if (typeof args[1] === 'string') args[1] = '127.0.0.1';
    else args.splice(1, 0, '127.0.0.1');
  }
  this.once('listening', () => {
    const address = this.address();
    if (address && typeof address === 'object') {
      report({ listening: `http://127.0.0.1:${address.port}` });
    }
  });
  return realListen.apply(this, args as Parameters<Server['listen']>);
} as Server['listen'];

process.on('exit', (code) => {
  const key = process.env.SVC_WORKSPACE_KEY ?? '';
  report({
    exit: code,
    workspace: emulator.workspace(key),
    requests: emulator.requests.map((r) => ({ method: r.method, path: r.path, status: r.status })),
  });
});
