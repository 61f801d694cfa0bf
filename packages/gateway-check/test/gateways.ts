import { runCli } from '../src/cli/run-cli.ts';
import type { FetchLike } from '../src/http/exchange.ts';
import type { Handler } from './fixtures/broken-gateways.ts';

/** A gateway's fetch handler as the checker's `fetch` option (requests never leave the process). */
export const inProcess =
  (handler: Handler): FetchLike =>
  (input, init) =>
    handler(new Request(input, init));

/** Where in-process gateways are reached. */
export const IN_PROCESS_URL = 'http://gateway.test';

/**
 * Runs the CLI in process with `argv`, no environment and no files written: its exit code and
 * what it printed.
 */
export async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env: {},
    writeFile: async () => {},
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
