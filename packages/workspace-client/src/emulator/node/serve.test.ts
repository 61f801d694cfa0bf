import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspaceClient } from '../../client/create-workspace-client.ts';
import { defineDebrief } from '../../debrief/define-debrief.ts';
import { AuthenticationError } from '../../errors/authentication-error.ts';
import { WorkspaceConfigError } from '../../errors/config-error.ts';
import { createWorkspaceEmulator } from '../emulator.ts';
import { type RunningEmulator, serveWorkspaceEmulator } from './serve.ts';

let running: RunningEmulator;
beforeAll(async () => {
  running = await serveWorkspaceEmulator();
});
afterAll(() => running.close());

describe('serveWorkspaceEmulator', () => {
  it('serves the workspace API over HTTP on a free local port', async () => {
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = createWorkspaceClient({ baseUrl: running.url, apiKey: 'wk_test_example' });
    await client.skills.upsert({ name: 'Pricing', instructions: 'Quote.' });
    const debrief = defineDebrief({
      externalId: 'w1',
      title: 'W1',
      pages: [{ title: 'P', html: '<p>x</p>' }],
    });
    await client.debriefs.upsert(debrief);
    expect((await client.skills.list()).map((s) => s.slug)).toEqual(['pricing']);
    expect((await client.debriefs.get('w1')).contract).toEqual(debrief.contract);
  });

  it('answers CORS preflights from another localhost origin', async () => {
    const response = await fetch(`${running.url}/api/v1/org/debriefs`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(response.headers.get('access-control-allow-headers')).toBe('authorization,content-type');
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('refuses a body over the limit with 413 without buffering it', async () => {
    const small = await serveWorkspaceEmulator({
      emulator: createWorkspaceEmulator({ maxBodyBytes: 1024 }),
    });
    try {
      const response = await fetch(`${small.url}/api/v1/org/skills`, {
        method: 'POST',
        headers: { authorization: 'Bearer wk_test_example', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Big', instructions: 'x'.repeat(4 * 1024 * 1024) }),
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ error: { code: 'payload_too_large' } });
      expect(small.emulator.workspace('wk_test_example').skills).toEqual([]);
    } finally {
      await small.close();
    }
  });

  it('refuses a foreign origin over HTTP', async () => {
    const response = await fetch(`${running.url}/api/v1/org/skills`, {
      headers: { authorization: 'Bearer wk_test_example', origin: 'https://evil.example' },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('rejects calls without a bearer key with a CORS-readable 401', async () => {
    const response = await fetch(`${running.url}/api/v1/org/skills`);
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('serveWorkspaceEmulator budgets (a shared dev server)', () => {
  /** Opens a connection that sends the headers of a POST and part of its body, then stalls. */
  const trickle = (url: string) => {
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST /api/v1/org/skills HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer wk_a\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":',
    );
    return socket;
  };

  it('answers a body that stalls with 408 request_timeout and closes it, by requestTimeoutMs', async () => {
    const server = await serveWorkspaceEmulator({ requestTimeoutMs: 300 });
    try {
      const socket = trickle(server.url);
      const startedAt = Date.now();
      let answer = '';
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString();
      });
      await once(socket, 'close');
      // Node's default held it for 300 s; the check runs every second.
      expect(Date.now() - startedAt).toBeLessThan(5_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
        error: { code: 'request_timeout', message: 'The request took too long to arrive' },
      });
    } finally {
      await server.close();
    }
  });

  it.each([
    [128, {}],
    [2, { maxConnections: 2 }],
  ])(
    'keeps at most %i connections open (%j), each holding at most one body',
    async (cap, options) => {
      const server = await serveWorkspaceEmulator(options);
      const sockets = Array.from({ length: cap }, () => trickle(server.url));
      try {
        await Promise.all(sockets.map((socket) => once(socket, 'connect')));
        // Accepted in order: the one past the cap is closed at once, the others stay open.
        const extra = trickle(server.url);
        await new Promise((resolve) => extra.on('close', resolve)); // reset, no answer
        expect(sockets.filter((socket) => socket.destroyed)).toEqual([]);
      } finally {
        for (const socket of sockets) socket.destroy();
        await server.close();
      }
    },
  );

  it('answers 429 emulator_busy past maxUnsentBytes of answers callers do not read, and closes a stalled one', {
    timeout: 30_000,
  }, async () => {
    const emulator = createWorkspaceEmulator({ maxBodyBytes: 9_000_000 });
    const server = await serveWorkspaceEmulator({
      emulator,
      maxUnsentBytes: 30_000_000,
      requestTimeoutMs: 2_000,
    });
    const client = createWorkspaceClient({
      baseUrl: server.url,
      apiKey: 'wk_big',
      maxResponseBytes: 64_000_000,
    });
    try {
      for (const externalId of ['a', 'b', 'c']) {
        const html = `<p>${'x'.repeat(8_000_000)}</p>`;
        await client.debriefs.upsert(
          defineDebrief({ externalId, title: 'Big', pages: [{ title: 'P', html }] }),
        );
      }
      // A caller asks for the 24 MB list and never reads it: more than the kernel buffers.
      const { port } = new URL(server.url);
      const stalled = connect(Number(port), '127.0.0.1');
      stalled.on('error', () => {});
      stalled.write(
        `GET /api/v1/org/debriefs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer wk_big\r\n\r\n`,
      );
      await once(stalled, 'readable');
      const busy = await fetch(`${server.url}/api/v1/org/debriefs`, {
        headers: { authorization: 'Bearer wk_big' },
      });
      expect(busy.status).toBe(429);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(await busy.json()).toMatchObject({ error: { code: 'emulator_busy' } });
      // The server closes the stalled connection after requestTimeoutMs without progress and
      // releases its answer: the client's retries of the 429 (1 s apart) then get the list.
      expect(await client.debriefs.list({ retry: { limit: 4 } })).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  it.each([
    ['maxConnections', { maxConnections: 0 }],
    ['maxConnections', { maxConnections: Number.POSITIVE_INFINITY }],
    ['requestTimeoutMs', { requestTimeoutMs: 0 }],
    ['maxUnsentBytes', { maxUnsentBytes: 0 }],
    ['requestTimeoutMs', { requestTimeoutMs: '30000' }],
  ])('refuses %s in %j before listening', async (name, options) => {
    await expect(serveWorkspaceEmulator(options as never)).rejects.toThrow(
      new RegExp(`^serveWorkspaceEmulator: ${name} is `),
    );
  });
});

describe('svc-workspace-emulator bin', () => {
  const bin = fileURLToPath(new URL('../../../dist/bin.js', import.meta.url));
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  const start = async (args: string[], env: Record<string, string> = {}): Promise<string> => {
    child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
    let out = '';
    for await (const chunk of child.stdout ?? []) {
      out += String(chunk);
      if (out.includes('\n')) break;
    }
    return out.trim();
  };

  it('prints the URL it listens on, takes --port, and serves isolated workspaces', async () => {
    const line = await start(['--port', '0']);
    const url = /listening on (http:\/\/\S+)$/.exec(line)?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const a = createWorkspaceClient({ baseUrl: url!, apiKey: 'wk_test_a' });
    const b = createWorkspaceClient({ baseUrl: url!, apiKey: 'wk_test_b' });
    await a.agents.upsert({ name: 'A', slug: 'a' });
    expect(await a.agents.list()).toHaveLength(1);
    expect(await b.agents.list()).toEqual([]);
    const raw = await fetch(`${url}/api/v1/org/agents`);
    expect(raw.status).toBe(401);
  });

  it('takes the port from PORT', async () => {
    const line = await start([], { PORT: '0' });
    expect(line).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('accepts --allow-origin for a non-local page', async () => {
    const line = await start(['--port', '0', '--allow-origin', 'https://app.example']);
    const url = /listening on (http:\/\/\S+)$/.exec(line)?.[1];
    const status = async (origin: string) =>
      (await fetch(`${url}/api/v1/org/skills`, { headers: { authorization: 'Bearer k', origin } }))
        .status;
    expect(await status('https://app.example')).toBe(200);
    expect(await status('http://localhost:5173')).toBe(200);
    expect(await status('https://other.example')).toBe(403);
  });

  /** Runs the bin to its exit (for command lines it refuses). */
  const refused = async (args: string[]): Promise<{ code: number; stderr: string }> => {
    child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const [code] = await once(child, 'close');
    return { code, stderr };
  };

  it.each([
    [['--prot', '1234'], 'Unknown option --prot'],
    [['-p'], 'Option -p needs a value'],
    [['--port'], 'Option --port needs a value'],
    [['--port', '--host', '127.0.0.1'], 'Option --port needs a value'],
    [['--help=yes'], 'Option --help takes no value'],
    [['4010'], 'Unexpected argument "4010"'],
  ])(
    'refuses %j with one line naming the flag, the usage and exit 2 (no stack)',
    async (args, line) => {
      const { code, stderr } = await refused(args);
      expect(code).toBe(2);
      expect(stderr.split('\n')[0]).toBe(line);
      expect(stderr).toContain('Usage: svc-workspace-emulator');
      expect(stderr).not.toMatch(/TypeError|ERR_PARSE_ARGS|\n\s+at /);
    },
  );

  it('refuses an invalid port with exit code 2', async () => {
    child = spawn(process.execPath, [bin, '--port', 'abc']);
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
  });

  it('maps a bad key to AuthenticationError through the client', async () => {
    running.emulator.failNext({ status: 401 });
    const client = createWorkspaceClient({ baseUrl: running.url, apiKey: 'wk_test_example' });
    await expect(client.skills.list()).rejects.toBeInstanceOf(AuthenticationError);
  });
});

/** GET /api/v1/org/skills on 127.0.0.1:`port` with a valid key and the given `Host`. */
function skillsAs(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/v1/org/skills',
        headers: { host, authorization: 'Bearer wk_test_example' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    sent.on('error', reject);
    sent.end();
  });
}

describe('serveWorkspaceEmulator on loopback: DNS rebinding', () => {
  it('refuses a valid key sent under a foreign Host with 403 host_not_allowed, as the preview does', async () => {
    for (const host of ['evil.example', `evil.example:${running.port}`]) {
      const refused = await skillsAs(running.port, host);
      expect(refused.status, host).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'host_not_allowed' } });
    }
    for (const host of [`127.0.0.1:${running.port}`, `localhost:${running.port}`, '[::1]']) {
      expect((await skillsAs(running.port, host)).status, host).toBe(200);
    }
  });

  it('answers the names listed in allowedHosts', async () => {
    const listed = await serveWorkspaceEmulator({
      emulator: createWorkspaceEmulator({ allowedHosts: ['Emulator.Test'] }),
    });
    try {
      expect((await skillsAs(listed.port, 'emulator.test:80')).status).toBe(200);
      expect((await skillsAs(listed.port, 'other.test')).status).toBe(403);
    } finally {
      await listed.close();
    }
  });

  it('does not check a server exposed on 0.0.0.0 (reached under names it cannot know)', async () => {
    const exposed = await serveWorkspaceEmulator({ host: '0.0.0.0' });
    try {
      expect((await skillsAs(exposed.port, 'workstation.lan:4010')).status).toBe(200);
    } finally {
      await exposed.close();
    }
  });
});

/** Servers listening in this process (Node's handle for a listening TCP server). */
const listening = (): number =>
  process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap').length;

describe('serveWorkspaceEmulator options', () => {
  it.each([
    ...[-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 65_536, 2 ** 53, '4010', null].map(
      (port) => ['port', { port }] as const,
    ),
    // '' would make Node listen on every interface.
    ...['', ' 127.0.0.1', '[::1]', 'http://127.0.0.1', 'localhost:4010', 127_001, null].map(
      (host) => ['host', { host }] as const,
    ),
    ['emulator', { emulator: {} }] as const,
  ])('refuses %s in %j before listening, naming it', async (name, options) => {
    const before = listening();
    const refused = serveWorkspaceEmulator(options as never);
    await expect(refused).rejects.toThrow(WorkspaceConfigError);
    await expect(refused).rejects.toThrow(new RegExp(`^serveWorkspaceEmulator: ${name} is `));
    expect(listening()).toBe(before);
  });

  it('refuses an unknown option before listening (a misspelt port listened on a random one)', async () => {
    const before = listening();
    await expect(serveWorkspaceEmulator({ prot: 23_499 } as never)).rejects.toThrow(
      new WorkspaceConfigError(
        'serveWorkspaceEmulator: unknown option "prot" (known: port, host, emulator, maxConnections, requestTimeoutMs, maxUnsentBytes).',
      ),
    );
    expect(listening()).toBe(before);
  });

  it('listens on a host name, port 0 picking a free port', async () => {
    const server = await serveWorkspaceEmulator({ port: 0, host: 'localhost' });
    try {
      expect(server.port).toBeGreaterThan(0);
      expect(server.url).toBe(`http://localhost:${server.port}`);
    } finally {
      await server.close();
    }
  });
});
