import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DISPATCHER = new URL('./callback-dispatcher.ts', import.meta.url).href;

/** Runs `body` as an ES module in a fresh Node process (which strips the TypeScript types). */
function runNode(body: string) {
  const script = `import { CallbackDispatcher } from ${JSON.stringify(DISPATCHER)};\n${body}`;
  return new Promise<{ code: number | null; killed: boolean; stdout: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      ['--no-warnings', '--input-type=module', '-e', script],
      { cwd: fileURLToPath(new URL('.', import.meta.url)), timeout: 30_000 },
      (_error, stdout) => resolve({ code: child.exitCode, killed: child.killed, stdout }),
    );
  });
}

// Each attempt answers 503 first, then 200; retries wait `baseDelayMs` (random() ≈ 1).
const dispatcher = (baseDelayMs: number) => `
let calls = 0;
const callbacks = new CallbackDispatcher({
  fetch: async () => new Response(null, { status: calls++ === 0 ? 503 : 200 }),
  baseDelayMs: ${baseDelayMs},
  maxDelayMs: ${baseDelayMs},
  random: () => 0.999,
});
const result = callbacks.dispatch({ url: 'https://hooks.example.com/cb', body: {}, webhookId: 'w1' });
`;

describe('CallbackDispatcher in a process', () => {
  it('a pending retry does not keep the process alive by itself', async () => {
    // The retry would come after ten minutes; the process ends long before.
    const run = await runNode(`${dispatcher(600_000)}\nconsole.log('dispatched');`);
    expect(run).toEqual({ code: 0, killed: false, stdout: 'dispatched\n' });
  });

  it('drain() keeps it alive until the retry has been delivered', async () => {
    const run = await runNode(
      `${dispatcher(200)}\nawait callbacks.drain();\nconsole.log(JSON.stringify(await result));`,
    );
    expect(run.killed).toBe(false);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ delivered: true, attempts: 2, status: 200 });
  });
});
