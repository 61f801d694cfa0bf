import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, serveWorkspaceEmulator } from '../emulator/node/serve.ts';

const bin = fileURLToPath(new URL('../../dist/svc-workspace.js', import.meta.url));
const KEY = 'wk_test_cli_0123456789';

let running: RunningEmulator;
let dir: string;

beforeAll(async () => {
  running = await serveWorkspaceEmulator();
});
afterAll(() => running.close());
beforeEach(async () => {
  running.emulator.reset();
  dir = await mkdtemp(join(tmpdir(), 'svc-workspace-'));
  return () => rm(dir, { recursive: true, force: true });
});

/** Runs the built bin (a real Node process) against the emulator. */
function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, SVC_WORKSPACE_URL: running.url, SVC_WORKSPACE_KEY: KEY, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function put(file: string, text: string): Promise<void> {
  await mkdir(join(dir, file, '..'), { recursive: true });
  await writeFile(join(dir, file), text);
}

async function sampleFolder(): Promise<void> {
  await put(
    'skills/pricing.yaml',
    'name: Pricing\ninstructions: Quote list prices only.\ntargets: [realtime, brain]\n',
  );
  await put(
    'skills/discounts.json',
    JSON.stringify({ name: 'Discounts', slug: 'discounts', instructions: 'Max 10 %.' }),
  );
  await put(
    'agents/deal-desk.yaml',
    [
      'name: Deal desk',
      'slug: deal-desk',
      'basePersonaId: svc-nova',
      'selectedSkillSlugs: [pricing, discounts]',
    ].join('\n'),
  );
  await put(
    'debriefs/weekly.yaml',
    [
      'externalId: weekly-2025-w01',
      'title: Week 1',
      'summary: Three deals moved.',
      'pages:',
      '  - title: Overview',
      '    html: <h1>Pipeline</h1>',
      '    speech: Here is the pipeline.',
    ].join('\n'),
  );
}

describe('svc-workspace validate', () => {
  it('accepts a valid folder of JSON and YAML files without sending anything', async () => {
    await sampleFolder();
    const { code, stdout } = await cli(['validate', dir]);
    expect(code).toBe(0);
    expect(stdout).toContain('Valid: 2 skill(s), 1 agent(s), 1 debrief(s).');
    expect(running.emulator.requests).toEqual([]);
  });

  it('refuses an invalid field with its file and field path, before any request', async () => {
    await sampleFolder();
    await put(
      'agents/bad.json',
      JSON.stringify({ name: 'Bad', slug: 'bad', basePersonaId: 'robot', organizationId: 'o' }),
    );
    await put(
      'debriefs/broken.yaml',
      'externalId: b\ntitle: B\npages:\n  - title: P\n    html: ""\n',
    );
    for (const args of [['validate'], ['plan', '--prune'], ['apply', '--yes', '--prune']]) {
      const [command = '', ...flags] = args;
      const { code, stderr } = await cli([command, dir, ...flags]);
      expect(code).toBe(1);
      expect(stderr).toContain(
        'agents/bad.json: basePersonaId: Must be one of "svc-nova", "svc-classic"',
      );
      expect(stderr).toContain(
        'agents/bad.json: organizationId: `organizationId` must never be sent',
      );
      expect(stderr).toContain('debriefs/broken.yaml: pages[0].html: Must not be empty');
      expect(stderr).toContain('nothing was sent');
    }
    expect(running.emulator.requests).toEqual([]);
  });

  it('reports unparseable files, duplicate YAML keys and a key declared twice', async () => {
    await put('skills/a.json', '{ "name": ');
    await put('skills/b.yaml', 'name: B\nname: C\ninstructions: x\n');
    await put('skills/c.yaml', 'name: Same\ninstructions: x\n');
    await put('skills/d.json', JSON.stringify({ name: 'Other', slug: 'same', instructions: 'y' }));
    const { code, stdout } = await cli(['validate', dir, '--json']);
    expect(code).toBe(1);
    const result = JSON.parse(stdout) as {
      ok: boolean;
      issues: { file: string; path: string; message: string }[];
    };
    expect(result.ok).toBe(false);
    expect(result.issues.map((issue) => [issue.file, issue.path])).toEqual([
      ['skills/a.json', ''],
      ['skills/b.yaml', ''],
      ['skills/d.json', 'slug'],
    ]);
    expect(result.issues[1]?.message).toMatch(/unique/i);
    expect(result.issues[2]?.message).toContain('also declared in skills/c.yaml');
  });
});

describe('svc-workspace plan / apply', () => {
  it('converges: plan, apply --prune, then a second plan shows no change', async () => {
    await sampleFolder();
    const first = await cli(['plan', dir, '--exit-code']);
    expect(first.code).toBe(3);
    expect(first.stdout).toContain('+ create    skills/pricing  (skills/pricing.yaml)');
    expect(first.stdout).toContain('Plan: 4 to create, 0 to update, 0 to delete, 0 unchanged.');
    const applied = await cli(['apply', dir, '--prune', '--yes']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/create skills\/pricing: 201 \(req_emu_\w+\)/);
    expect(applied.stdout).toContain('Applied 4 change(s).');
    const stored = running.emulator.workspace(KEY);
    expect(stored.agents[0]).toMatchObject({
      slug: 'deal-desk',
      selectedSkillSlugs: ['pricing', 'discounts'],
    });
    expect(stored.debriefs[0]?.contract).toMatchObject({
      canvas: { pages: [{ title: 'Overview' }] },
    });
    const second = await cli(['plan', dir, '--prune', '--exit-code']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete, 4 unchanged.');
    expect(`${first.stdout}${applied.stdout}${second.stdout}`).not.toContain(KEY);
  });

  it('shows updates by field, deletes only with --prune, and never deletes debriefs', async () => {
    await sampleFolder();
    expect((await cli(['apply', dir, '--yes'])).code).toBe(0);
    await put(
      'skills/pricing.yaml',
      'name: Pricing\ninstructions: Quote net prices.\ntargets: [realtime, brain]\n',
    );
    await rm(join(dir, 'skills/discounts.json'));
    await rm(join(dir, 'debriefs/weekly.yaml'));
    const kept = await cli(['plan', dir, '--json']);
    const keptPlan = JSON.parse(kept.stdout) as {
      changes: { action: string; key: string; fields?: string[] }[];
    };
    expect(keptPlan.changes).toContainEqual(
      expect.objectContaining({ action: 'update', key: 'pricing', fields: ['instructions'] }),
    );
    expect(keptPlan.changes.some((change) => change.action === 'delete')).toBe(false);
    const pruned = await cli(['apply', dir, '--prune', '--yes', '--json']);
    expect(pruned.code).toBe(0);
    const result = JSON.parse(pruned.stdout) as {
      applied: { action: string; kind: string; key: string; status: number }[];
    };
    expect(result.applied.map((a) => [a.action, a.kind, a.key, a.status])).toEqual([
      ['update', 'skills', 'pricing', 200],
      ['delete', 'skills', 'discounts', 204],
    ]);
    const stored = running.emulator.workspace(KEY);
    expect(stored.skills.map((s) => s.slug)).toEqual(['pricing']);
    expect(stored.debriefs).toHaveLength(1);
  });

  it('uses the client retries, and reports a failed call with its request id and exit 1', async () => {
    await sampleFolder();
    running.emulator.failNext({ status: 503, method: 'POST', path: '/skills' });
    const retried = await cli(['apply', dir, '--yes']);
    expect(retried.code).toBe(0);
    running.emulator.failNext({ status: 409, method: 'POST', path: '/debriefs' });
    await put(
      'debriefs/weekly.yaml',
      'externalId: weekly-2025-w01\ntitle: Week 1 (v2)\npages:\n  - title: O\n    html: <p>x</p>\n',
    );
    const failed = await cli(['apply', dir, '--yes']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /update debriefs\/weekly-2025-w01 failed: Injected failure 409 \(request req_emu_\w+\)/,
    );
  });

  it('refuses to apply without --yes when not interactive, and needs the service settings', async () => {
    await sampleFolder();
    const noYes = await cli(['apply', dir]);
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toContain('pass --yes');
    expect(running.emulator.requests.every((r) => r.method === 'GET')).toBe(true);
    const noKey = await cli(['plan', dir], { SVC_WORKSPACE_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('SVC_WORKSPACE_KEY');
    expect((await cli(['frobnicate', dir])).code).toBe(2);
    expect((await cli(['plan'])).code).toBe(2);
  });

  it('never echoes the key, typed by mistake as a command or a folder', async () => {
    const asCommand = await cli([KEY, dir]);
    expect(asCommand.code).toBe(2);
    expect(asCommand.stderr).toContain('Unknown command "[redacted]"');
    const asFolder = await cli(['plan', KEY]);
    expect(asFolder.code).not.toBe(0);
    for (const run of [asCommand, asFolder]) expect(run.stderr).not.toContain(KEY);
  });

  // The settings are named as the user set them, not as createWorkspaceClient's options.
  it.each([
    [['--base-url', 'ftp://svc.test'], {}, '--base-url is not an absolute http'],
    [['--base-url', 'https://user:secret@svc.test'], {}, '--base-url is not an absolute http'],
    [[], { SVC_WORKSPACE_URL: 'svc.test' }, 'SVC_WORKSPACE_URL is not an absolute http'],
    [[], { SVC_WORKSPACE_KEY: 'wk_test key' }, 'SVC_WORKSPACE_KEY must be printable ASCII'],
  ])('refuses plan DIR %j with %j naming the setting, exit 2', async (args, env, start) => {
    await sampleFolder();
    const { code, stderr } = await cli(['plan', dir, ...args], env);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toMatch(new RegExp(`^${start}`));
    expect(stderr).toContain('Usage: svc-workspace');
    expect(stderr).not.toMatch(/createWorkspaceClient|baseUrl|apiKey|secret|wk_test key/);
    expect(running.emulator.requests).toEqual([]);
  });

  it.each([
    [['plan', 'DIR', '--bogus'], 'Unknown option --bogus'],
    [['--bogus'], 'Unknown option --bogus'],
    [['plan', 'DIR', '--base-url'], 'Option --base-url needs a value'],
    [['plan', 'DIR', '--prune=yes'], 'Option --prune takes no value'],
  ])('refuses %j with one line naming the flag, the usage and exit 2', async (args, line) => {
    const { code, stderr } = await cli(args.map((arg) => (arg === 'DIR' ? dir : arg)));
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(line);
    expect(stderr).toContain('Usage: svc-workspace');
    expect(stderr).not.toMatch(/ERR_PARSE_ARGS|'-- "|\n\s+at /);
  });
});

describe('svc-workspace reads whole lists', () => {
  const stored = { name: 'Old', slug: 'old', instructions: 'x' };
  const seed = async (count: number) => {
    for (let i = 0; i < count; i += 1) {
      const response = await running.emulator.handle(
        new Request(`${running.url}/api/v1/org/skills`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ...stored, slug: `old-${i}` }),
        }),
      );
      expect(response.status).toBe(201);
    }
  };

  it('plans every stored object, up to the emulator limit of 1000 per collection', async () => {
    await seed(1000);
    await mkdir(join(dir, 'skills'));
    const { code, stdout } = await cli(['plan', dir, '--prune', '--json']);
    expect(code).toBe(0);
    const { summary } = JSON.parse(stdout) as { summary: { delete: number } };
    expect(summary.delete).toBe(1000);
  });

  it.each([
    ['nextCursor', { skills: [stored], nextCursor: 'c2' }, {}, 'nextCursor is set'],
    ['hasMore', { data: [stored], hasMore: true }, {}, 'hasMore is set'],
    [
      'a total above the items',
      { items: [stored], total: 1200 },
      {},
      'total is 1200 but it holds 1',
    ],
    [
      'a Link header',
      [stored],
      { link: '</api/v1/org/skills?cursor=c2>; rel="next"' },
      'its Link header has rel="next"',
    ],
  ])(
    'refuses a list answer that holds part of the list (%s): exit 1, nothing planned or applied',
    async (_, body, headers, why) => {
      await sampleFolder();
      for (const args of [
        ['plan', dir, '--prune'],
        ['apply', dir, '--prune', '--yes'],
      ]) {
        running.emulator.failNext({ status: 200, method: 'GET', path: '/skills', body, headers });
        const { code, stdout, stderr } = await cli(args);
        expect(code).toBe(1);
        expect(stderr).toBe(
          `Reading the workspace failed: GET /skills answered part of the list (${why}); svc-workspace compares whole lists only, so nothing was planned\n`,
        );
        expect(stdout).toBe('');
      }
      expect(running.emulator.requests.filter(({ method }) => method !== 'GET')).toEqual([]);
    },
  );

  it('accepts an envelope that says the list is whole', async () => {
    await mkdir(join(dir, 'skills'));
    running.emulator.failNext({
      status: 200,
      method: 'GET',
      path: '/skills',
      body: { skills: [stored], nextCursor: null, hasMore: false, total: 1 },
    });
    const { code, stdout } = await cli(['plan', dir, '--prune']);
    expect(code).toBe(0);
    expect(stdout).toContain('skills/old');
  });
});

describe('svc-workspace options of another command', () => {
  // What each command does with each flag; a flag it does not take must not be ignored.
  const takes: Record<string, string[]> = {
    validate: ['--json'],
    plan: ['--prune', '--exit-code', '--json', '--base-url'],
    apply: ['--prune', '--yes', '--json', '--base-url'],
    preview: ['--port'],
  };
  const value: Record<string, string[]> = { '--base-url': ['URL'], '--port': ['0'] };

  it('the help lists exactly these commands and flags', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    const commands = [...stdout.matchAll(/^ {2}([a-z]+) (?:DIR|FILE)/gm)].map((m) => m[1]);
    expect(commands).toEqual(Object.keys(takes));
    const options = stdout.slice(stdout.indexOf('Options'));
    const flags = [...options.matchAll(/^ {2}(?:-\w, )? {0,4}(--[a-z-]+)/gm)].map((m) => m[1]);
    expect(new Set(flags)).toEqual(new Set([...Object.values(takes).flat(), '--help']));
  });

  const refused = Object.entries(takes).flatMap(([command, own]) =>
    [...new Set(Object.values(takes).flat())]
      .filter((flag) => !own.includes(flag))
      .map((flag) => {
        const owners = Object.keys(takes).filter((other) => takes[other]?.includes(flag));
        const list = `${owners.slice(0, -1).join(', ')}${owners.length > 1 ? ' and ' : ''}${owners.at(-1)}`;
        return [command, flag, `Option ${flag} does not apply to ${command} (only to ${list})`];
      }),
  );

  it.each(refused)(
    '%s refuses %s with exit 2 before reading or sending anything',
    async (command, flag, line) => {
      await sampleFolder();
      const target = command === 'preview' ? join(dir, 'debriefs/weekly.yaml') : dir;
      const args = [command, target, flag, ...(value[flag] ?? [])].map((arg) =>
        arg === 'URL' ? running.url : arg,
      );
      const { code, stdout, stderr } = await cli(args);
      expect(code).toBe(2);
      expect(stderr.split('\n')[0]).toBe(line);
      expect(stderr).toContain('Usage: svc-workspace');
      expect(stdout).toBe('');
      expect(running.emulator.requests).toEqual([]);
    },
  );

  it('names a short flag as typed', async () => {
    const { code, stderr } = await cli(['plan', dir, '-y']);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe('Option -y does not apply to plan (only to apply)');
  });

  it.each(
    Object.entries(takes)
      .filter(([command]) => command !== 'preview')
      .flatMap(([command, own]) => own.map((flag) => [command, flag])),
  )('%s takes %s', async (command, flag) => {
    await sampleFolder();
    const args = [command, dir, flag, ...(value[flag] ?? [])].map((arg) =>
      arg === 'URL' ? running.url : arg,
    );
    if (command === 'apply' && flag !== '--yes') args.push('--yes');
    const { code, stderr } = await cli(args);
    expect(stderr).toBe('');
    expect([0, 3]).toContain(code);
  });
});

describe('svc-workspace preview', () => {
  it('refuses an invalid debrief file with its field paths', async () => {
    await put(
      'd.yaml',
      'externalId: x\ntitle: X\npages:\n  - title: P\n    html: ""\nsections:\n  - title: S\n    pageIndex: 4\n',
    );
    const { code, stderr } = await cli(['preview', join(dir, 'd.yaml')]);
    expect(code).toBe(1);
    expect(stderr).toContain('d.yaml: pages[0].html: Must not be empty');
    expect(stderr).toContain('d.yaml: sections[0].pageIndex: Points at page 4');
  });

  it('serves the file on 127.0.0.1 without publishing it, re-reading it on each request', async () => {
    await put(
      'd.yaml',
      'externalId: x\ntitle: First\npages:\n  - title: P\n    html: <p>one</p>\n',
    );
    const child = spawn(process.execPath, [bin, 'preview', join(dir, 'd.yaml'), '--port', '0'], {
      env: { ...process.env, SVC_WORKSPACE_KEY: '' },
    });
    try {
      let out = '';
      for await (const chunk of child.stdout) {
        out += String(chunk);
        if (out.includes('\n')) break;
      }
      const url = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1] ?? '';
      const first = await fetch(url);
      expect(first.status).toBe(200);
      expect(first.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(await first.text()).toContain('<h1>First</h1>');
      await put(
        'd.yaml',
        'externalId: x\ntitle: Second\npages:\n  - title: P\n    html: <p>two</p>\n',
      );
      expect(await (await fetch(url)).text()).toContain('<h1>Second</h1>');
      await put('d.yaml', 'externalId: x\n');
      const broken = await fetch(url);
      expect(broken.status).toBe(422);
      expect(await broken.text()).toContain('title: Expected a string');
      expect((await fetch(`${url}other`)).status).toBe(404);
      const rebound = await new Promise<number | undefined>((resolve, reject) => {
        get(url, { headers: { host: 'evil.example' } }, (res) => {
          res.resume();
          resolve(res.statusCode);
        }).on('error', reject);
      });
      expect(rebound).toBe(403);
      expect(running.emulator.requests).toEqual([]);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
