import { lstat, readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import * as v from 'valibot';
import { type DebriefDraft, defineDebrief } from '../debrief/define-debrief.ts';
import { WorkspaceValidationError } from '../errors/validation-error.ts';
import { type SharedAgentInput, SharedAgentInputSchema } from '../schemas/agent.ts';
import { type DebriefInput, DebriefInputSchema } from '../schemas/debrief.ts';
import { toIssues } from '../schemas/issues.ts';
import { type SharedSkillInput, SharedSkillInputSchema } from '../schemas/skill.ts';
import { slugify } from '../schemas/slugify.ts';
import { parseYaml } from './parse-yaml.ts';

/** The three kinds of workspace object, each in its own sub-folder. */
export const KINDS: readonly ['skills', 'agents', 'debriefs'] = [
  'skills',
  'agents',
  'debriefs',
] as const;
export type Kind = (typeof KINDS)[number];

/** One object read from a file, with the key it is upserted by. */
export interface LocalItem<T = unknown> {
  readonly kind: Kind;
  readonly key: string;
  /** File path relative to the folder, with `/` separators. */
  readonly file: string;
  readonly input: T;
}

/** Everything a folder declares. */
export interface LocalState {
  readonly skills: LocalItem<SharedSkillInput>[];
  readonly agents: LocalItem<SharedAgentInput>[];
  readonly debriefs: LocalItem<DebriefInput>[];
}

/** A problem in a file: `path` names the field (`''` for the whole file). */
export interface FileIssue {
  readonly file: string;
  readonly path: string;
  readonly message: string;
}

/** Limits of what a folder may hold (the emulator's own defaults). */
export const LIMITS: { readonly filesPerKind: 1000; readonly fileBytes: 1_048_576 } = {
  filesPerKind: 1000,
  fileBytes: 1_048_576,
};

const EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

/**
 * Parses JSON or YAML text; YAML within its size, depth and key limits (`YAML_LIMITS`), anchors
 * bounded and duplicate keys refused.
 */
function parseText(text: string, extension: string): unknown {
  if (extension === '.json') return JSON.parse(text);
  return parseYaml(text);
}

/**
 * A debrief file holds either a complete debrief (with `contract`) or a draft in
 * `defineDebrief`'s shape (`pages`, optional `sections`, ...), whose issue paths are mapped back
 * to the draft's fields.
 */
function readDebrief(value: unknown): DebriefInput {
  const record = value as Record<string, unknown> | null;
  if (record !== null && typeof record === 'object' && !('contract' in record)) {
    try {
      return defineDebrief(record as unknown as DebriefDraft);
    } catch (error) {
      if (!(error instanceof WorkspaceValidationError)) throw error;
      const issues = error.issues.map((issue) => ({
        path: issue.path
          .replace(/^contract\.canvas\.(pages)/, '$1')
          .replace(/^contract\.(sections)/, '$1'),
        message: issue.message,
      }));
      throw new WorkspaceValidationError('request', 'debrief', issues);
    }
  }
  const result = v.safeParse(DebriefInputSchema, value);
  if (!result.success)
    throw new WorkspaceValidationError('request', 'debrief', toIssues(result.issues));
  return result.output;
}

/** Validates one parsed file and returns its item. Throws `WorkspaceValidationError`. */
function readItem(kind: Kind, file: string, value: unknown): LocalItem {
  if (kind === 'debriefs') {
    const input = readDebrief(value);
    return { kind, file, key: input.externalId, input };
  }
  const schema = kind === 'skills' ? SharedSkillInputSchema : SharedAgentInputSchema;
  const result = v.safeParse(schema as v.GenericSchema<SharedSkillInput | SharedAgentInput>, value);
  if (!result.success) {
    throw new WorkspaceValidationError('request', kind, toIssues(result.issues));
  }
  const input = result.output;
  const key = input.slug ?? slugify(input.name);
  if (key === '') {
    throw new WorkspaceValidationError('request', kind, [
      { path: 'slug', message: 'Required because no slug can be derived from name' },
    ]);
  }
  return { kind, file, key, input };
}

/** Parses and validates one file of a kind; returns its item or its issues. */
export async function loadFile(
  kind: Kind,
  path: string,
  file: string,
): Promise<{ item?: LocalItem; issues: FileIssue[] }> {
  const fail = (message: string, field = '') => ({ issues: [{ file, path: field, message }] });
  const stat = await lstat(path);
  if (!stat.isFile()) return fail('Not a regular file (symbolic links are not followed)');
  if (stat.size > LIMITS.fileBytes) return fail(`Larger than ${LIMITS.fileBytes} bytes`);
  let value: unknown;
  try {
    value = parseText(await readFile(path, 'utf8'), extname(path).toLowerCase());
  } catch (error) {
    return fail(`Cannot be parsed: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return { item: readItem(kind, file, value), issues: [] };
  } catch (error) {
    if (!(error instanceof WorkspaceValidationError)) throw error;
    return { issues: error.issues.map((issue) => ({ file, ...issue })) };
  }
}

/**
 * Reads `dir/skills`, `dir/agents` and `dir/debriefs` (each optional): every `.json`, `.yaml`
 * or `.yml` file holds one object. Reports every problem of every file, plus keys declared
 * twice, before anything is sent.
 */
export async function loadFolder(dir: string): Promise<{ state: LocalState; issues: FileIssue[] }> {
  const state: LocalState = { skills: [], agents: [], debriefs: [] };
  const issues: FileIssue[] = [];
  const root = await lstat(dir).catch(() => undefined);
  if (root === undefined || !root.isDirectory()) {
    return { state, issues: [{ file: dir, path: '', message: 'Not a directory' }] };
  }
  for (const kind of KINDS) {
    const sub = join(dir, kind);
    const entries = await readdir(sub, { withFileTypes: true }).catch(() => undefined);
    if (entries === undefined) continue;
    const files = entries
      .filter((entry) => EXTENSIONS.has(extname(entry.name).toLowerCase()))
      .map((entry) => entry.name)
      .sort();
    if (files.length > LIMITS.filesPerKind) {
      issues.push({ file: kind, path: '', message: `More than ${LIMITS.filesPerKind} files` });
      continue;
    }
    const seen = new Map<string, string>();
    for (const name of files) {
      const file = `${kind}/${name}`;
      const loaded = await loadFile(kind, join(sub, name), file);
      issues.push(...loaded.issues);
      if (loaded.item === undefined) continue;
      const other = seen.get(loaded.item.key);
      if (other !== undefined) {
        const field = kind === 'debriefs' ? 'externalId' : 'slug';
        issues.push({
          file,
          path: field,
          message: `"${loaded.item.key}" is also declared in ${other}`,
        });
        continue;
      }
      seen.set(loaded.item.key, file);
      (state[kind] as LocalItem[]).push(loaded.item);
    }
  }
  return { state, issues };
}
