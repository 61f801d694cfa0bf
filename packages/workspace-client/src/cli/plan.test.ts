import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFolder } from './load.ts';
import { covers, plan } from './plan.ts';

const skill = { name: 'Pricing', slug: 'pricing', instructions: 'Quote.', targets: ['brain'] };
const local = (skills = [skill]) => ({
  skills: skills.map((input) => ({ kind: 'skills' as const, key: input.slug, file: 'f', input })),
  agents: [],
  debriefs: [],
});

describe('plan', () => {
  it('ignores key order and fields the service adds or fills in', () => {
    const stored = {
      targets: ['brain'],
      id: 'sk_1',
      instructions: 'Quote.',
      slug: 'pricing',
      name: 'Pricing',
      status: 'active',
    };
    expect(plan(local(), { skills: [stored], agents: [], debriefs: [] }, true)).toEqual([
      { action: 'unchanged', kind: 'skills', key: 'pricing', file: 'f' },
    ]);
  });

  it('ignores fields the service adds inside nested objects, not missing or changed ones', () => {
    const contract = { title: 'T', canvas: { pages: [{ title: 'P', html: '<p/>' }] } };
    expect(
      covers(contract, {
        ...contract,
        renderedAt: 'x',
        canvas: { ...contract.canvas, theme: 'dark' },
      }),
    ).toBe(true);
    expect(covers(contract, { title: 'T', canvas: { pages: [] } })).toBe(false);
    expect(
      covers(contract, { title: 'T', canvas: { pages: [{ title: 'P', html: '<p></p>' }] } }),
    ).toBe(false);
    expect(covers({ a: [1, 2] }, { a: [1, 2, 3] })).toBe(false);
    expect(covers({ a: null }, { a: null })).toBe(true);
    expect(covers({ a: {} }, { a: null })).toBe(false);
  });

  it('names the fields that differ, array order included', () => {
    const stored = { ...skill, targets: ['realtime', 'brain'] };
    expect(
      plan(
        local([{ ...skill, targets: ['brain', 'realtime'] }]),
        { skills: [stored], agents: [], debriefs: [] },
        false,
      )[0],
    ).toMatchObject({
      action: 'update',
      fields: ['targets'],
    });
  });

  it('deletes undeclared skills and agents only with prune, debriefs never', () => {
    const remote = {
      skills: [{ name: 'Old', slug: 'old' }],
      agents: [{ name: 'A', slug: 'a' }],
      debriefs: [{ externalId: 'kept' }],
    };
    const empty = { skills: [], agents: [], debriefs: [] };
    expect(plan(empty, remote, false)).toEqual([]);
    expect(plan(empty, remote, true).map((c) => [c.action, c.kind, c.key])).toEqual([
      ['delete', 'skills', 'old'],
      ['delete', 'agents', 'a'],
    ]);
  });
});

describe('loadFolder', () => {
  it('refuses a YAML alias bomb and files over 1 MiB, and does not follow symlinks', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-workspace-load-'));
    try {
      await mkdir(join(dir, 'skills'));
      const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
      for (let level = 1; level < 8; level += 1) {
        const previous = String.fromCharCode(96 + level);
        const name = String.fromCharCode(97 + level);
        bomb.push(`${name}: &${name} [${Array(10).fill(`*${previous}`).join(', ')}]`);
      }
      await writeFile(
        join(dir, 'skills/bomb.yaml'),
        `${bomb.join('\n')}\nname: B\ninstructions: x\n`,
      );
      await writeFile(
        join(dir, 'skills/big.json'),
        JSON.stringify({ name: 'Big', instructions: 'x'.repeat(1_100_000) }),
      );
      await writeFile(join(dir, 'secret.json'), JSON.stringify({ name: 'S', instructions: 'x' }));
      await symlink(join(dir, 'secret.json'), join(dir, 'skills/link.json'));
      const { issues, state } = await loadFolder(dir);
      expect(state.skills).toEqual([]);
      expect(issues.map((issue) => issue.file)).toEqual([
        'skills/big.json',
        'skills/bomb.yaml',
        'skills/link.json',
      ]);
      expect(issues[2]?.message).toContain('symbolic links are not followed');
      expect(issues[0]?.message).toContain('Larger than 1048576 bytes');
      expect(issues[1]?.message).toMatch(/alias/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports a missing folder', async () => {
    const { issues } = await loadFolder(join(tmpdir(), 'svc-workspace-does-not-exist-here'));
    expect(issues[0]?.message).toBe('Not a directory');
  });
});
