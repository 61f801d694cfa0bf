import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import {
  escapeHtml,
  PREVIEW_HEADERS,
  previewDocument,
  renderDebrief,
} from '../emulator/preview.ts';
import { formatIssues } from './format.ts';
import { loadFile } from './load.ts';

/** Renders the file as a page, or its problems (status 422). Read again on every request. */
async function page(file: string): Promise<{ status: number; html: string; problems?: string }> {
  const { item, issues } = await loadFile('debriefs', file, basename(file));
  if (item !== undefined) return { status: 200, html: renderDebrief(item.input) };
  const problems = formatIssues(issues);
  const body = `<main><h1>${escapeHtml(basename(file))}</h1><p class="error">This debrief is invalid:</p><pre>${escapeHtml(problems)}</pre></main>`;
  return { status: 422, html: previewDocument('Invalid debrief', body), problems };
}

/**
 * `svc-workspace preview FILE`: serves the debrief file (complete or a `defineDebrief` draft)
 * on 127.0.0.1 as it is presented, without publishing it. The file is read again on every
 * reload, so edits show at once. Runs until interrupted; returns the exit code.
 */
export async function preview(
  file: string,
  rawPort: string | undefined,
  print: (line: string) => void,
): Promise<number> {
  const port = Number(rawPort ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`Invalid --port "${rawPort}"\n`);
    return 2;
  }
  const first = await page(file).catch((error: unknown) => ({
    status: 500,
    html: '',
    problems: `${file}: ${error instanceof Error ? error.message : String(error)}`,
  }));
  if (first.problems !== undefined) {
    process.stderr.write(`${first.problems}\nThe file is invalid; fix it and run preview again.\n`);
    return 1;
  }
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://preview.local').pathname;
    // Only this machine's names: a foreign name re-bound to 127.0.0.1 must not read the file.
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    if (!['localhost', '127.0.0.1'].includes(host)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('Host not allowed');
      return;
    }
    if (path !== '/' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    page(file).then(
      ({ status, html }) => res.writeHead(status, PREVIEW_HEADERS).end(html),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('Cannot read the file'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  print(`Preview of ${file} at http://127.0.0.1:${bound}/ (not published; Ctrl+C to stop)`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      server.close(() => resolve());
      server.closeAllConnections();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}
