#!/usr/bin/env node
import { createInterface } from 'node:readline/promises';
import { createWorkspaceClient } from '../client/create-workspace-client.ts';
import { apiRoot, createTransport, KEY_PATTERN } from '../client/transport.ts';
import { WorkspaceApiError } from '../errors/api-error.ts';
import { WorkspaceConfigError } from '../errors/config-error.ts';
import { redact } from '../errors/redact.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { applyPlan } from './apply.ts';
import { parseFlags, UsageError } from './args.ts';
import { formatIssues, formatPlan } from './format.ts';
import { loadFolder } from './load.ts';
import { plan, summarize } from './plan.ts';
import { preview } from './preview.ts';
import { readWorkspace } from './read-workspace.ts';

const usage = `Usage: svc-workspace <command> [options]

Workspace as code: skills, agents and debriefs kept as files in DIR/skills, DIR/agents and
DIR/debriefs (one object per .json, .yaml or .yml file).

Commands:
  validate DIR [--json]     check every file; nothing is sent
  plan DIR [--prune] [--exit-code] [--json] [--base-url <url>]
                            show what apply would create, update, keep or delete
  apply DIR [--prune] [--yes] [--json] [--base-url <url>]
                            validate, plan, then carry the plan out
  preview FILE [--port <n>] serve a debrief file (complete or a defineDebrief draft) on
                            127.0.0.1 as it is presented, without publishing it

Options (each command takes only those shown with it; another is a usage error):
      --prune               plan, apply: also delete skills and agents that no file declares
                            (debriefs are never deleted: the API has no debrief delete)
  -y, --yes                 apply: apply without asking (required when not interactive)
      --json                validate, plan, apply: print the result as JSON
      --exit-code           plan: exit 3 when there are changes
      --base-url <url>      plan, apply: service address (env SVC_WORKSPACE_URL)
      --port <n>            preview: port to serve on (default: a free one)
  -h, --help                show this help

The key is read from the environment variable SVC_WORKSPACE_KEY, never from the command line.
Exit codes: 0 done (or no change), 1 invalid files or a failed call, 2 usage error,
3 changes pending (plan --exit-code).`;

/** Exit codes. */
const EXIT = { ok: 0, failed: 1, usage: 2, changes: 3 } as const;

type Values = {
  prune?: boolean | undefined;
  yes?: boolean | undefined;
  json?: boolean | undefined;
  'exit-code'?: boolean | undefined;
  'base-url'?: string | undefined;
  port?: string | undefined;
  help?: boolean | undefined;
};

/** The options each command takes (`--help` goes with any). */
const TAKES: Readonly<Record<string, readonly (keyof Values)[]>> = {
  validate: ['json'],
  plan: ['prune', 'exit-code', 'json', 'base-url'],
  apply: ['prune', 'yes', 'json', 'base-url'],
  preview: ['port'],
};

function parse(argv: string[]): { command: string; target: string; values: Values } {
  const { values, positionals, typed } = parseFlags(
    argv,
    {
      prune: { type: 'boolean' },
      yes: { type: 'boolean', short: 'y' },
      json: { type: 'boolean' },
      'exit-code': { type: 'boolean' },
      'base-url': { type: 'string' },
      port: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (values.help) return { command: 'help', target: '', values };
  const [command, target, ...extra] = positionals;
  if (command === undefined) throw new UsageError('A command is required');
  if (!Object.hasOwn(TAKES, command)) throw new UsageError(`Unknown command "${command}"`);
  // A flag of another command would be silently ignored, yet whoever typed it expects an effect.
  for (const [name, flag] of typed) {
    const option = name as keyof Values;
    if (option === 'help' || TAKES[command]?.includes(option)) continue;
    const owners = Object.keys(TAKES).filter((other) => TAKES[other]?.includes(option));
    const list = `${owners.slice(0, -1).join(', ')}${owners.length > 1 ? ' and ' : ''}${owners.at(-1)}`;
    throw new UsageError(`Option ${flag} does not apply to ${command} (only to ${list})`);
  }
  if (target === undefined || extra.length > 0) {
    throw new UsageError(`${command} takes exactly one ${command === 'preview' ? 'FILE' : 'DIR'}`);
  }
  return { command, target, values };
}

function connect(values: Values) {
  const baseUrl = values['base-url'] ?? process.env.SVC_WORKSPACE_URL;
  const apiKey = process.env.SVC_WORKSPACE_KEY;
  if (baseUrl === undefined || baseUrl === '') {
    throw new UsageError('Pass --base-url or set SVC_WORKSPACE_URL');
  }
  if (apiKey === undefined || apiKey === '') throw new UsageError('Set SVC_WORKSPACE_KEY');
  // Named as the user set them, not as the options of createWorkspaceClient; never quoted (a
  // URL may hold credentials).
  if (apiRoot(baseUrl) === undefined) {
    const source = values['base-url'] === undefined ? 'SVC_WORKSPACE_URL' : '--base-url';
    throw new UsageError(
      `${source} is not an absolute http(s) URL without credentials (e.g. https://svc.example.com)`,
    );
  }
  if (!KEY_PATTERN.test(apiKey)) {
    throw new UsageError('SVC_WORKSPACE_KEY must be printable ASCII without spaces or line breaks');
  }
  // Lists are read on a transport of their own, whose answers show whether a list is whole.
  const options = { baseUrl, apiKey };
  return {
    client: createWorkspaceClient(options),
    transport: createTransport(options, 'createWorkspaceClient'),
  };
}

/** A secret-free description of a failed call. */
function describe(error: unknown): { [field: string]: unknown; message: string } {
  if (error instanceof WorkspaceApiError) {
    return {
      name: error.name,
      message: error.message,
      status: error.status,
      code: error.code,
      requestId: error.requestId,
    };
  }
  if (error instanceof WorkspaceError) return { name: error.name, message: error.message };
  return { name: 'Error', message: error instanceof Error ? error.message : String(error) };
}

const print = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

async function run(argv: string[]): Promise<number> {
  const { command, target, values } = parse(argv);
  if (command === 'help') {
    print(usage);
    return EXIT.ok;
  }
  const json = values.json === true;
  if (command === 'preview') return preview(target, values.port, print);

  const { state, issues } = await loadFolder(target);
  if (issues.length > 0) {
    if (json) print(JSON.stringify({ ok: false, issues }, null, 2));
    else
      process.stderr.write(
        scrub(`${formatIssues(issues)}\n${issues.length} problem(s); nothing was sent.\n`),
      );
    return EXIT.failed;
  }
  const counts = {
    skills: state.skills.length,
    agents: state.agents.length,
    debriefs: state.debriefs.length,
  };
  if (command === 'validate') {
    if (json) print(JSON.stringify({ ok: true, issues: [], counts }, null, 2));
    else
      print(
        `Valid: ${counts.skills} skill(s), ${counts.agents} agent(s), ${counts.debriefs} debrief(s).`,
      );
    return EXIT.ok;
  }

  const { client, transport } = connect(values);
  const prune = values.prune === true;
  let changes: ReturnType<typeof plan>;
  try {
    changes = plan(state, await readWorkspace(transport), prune);
  } catch (error) {
    const failure = describe(error);
    if (json) print(JSON.stringify({ ok: false, error: failure }, null, 2));
    else process.stderr.write(`Reading the workspace failed: ${String(failure.message)}\n`);
    return EXIT.failed;
  }
  const summary = summarize(changes);
  const pending = summary.create + summary.update + summary.delete;
  const planOut = changes.map(({ input: _, ...change }) => change);

  if (command === 'plan') {
    if (json) print(JSON.stringify({ ok: true, changes: planOut, summary }, null, 2));
    else print(formatPlan(changes));
    return pending > 0 && values['exit-code'] === true ? EXIT.changes : EXIT.ok;
  }

  if (!json) print(formatPlan(changes));
  if (pending === 0) {
    if (json) print(JSON.stringify({ ok: true, applied: [], summary }, null, 2));
    else print('Nothing to apply.');
    return EXIT.ok;
  }
  if (values.yes !== true) {
    if (!process.stdin.isTTY) {
      throw new UsageError('Not interactive: pass --yes to apply');
    }
    if (!(await confirm(`Apply ${pending} change(s)? [y/N] `))) {
      print('Cancelled; nothing was applied.');
      return EXIT.failed;
    }
  }
  const result = await applyPlan(client, changes, ({ change, status, requestId }) => {
    if (!json)
      print(
        `${change.action} ${change.kind}/${change.key}: ${status}${requestId ? ` (${requestId})` : ''}`,
      );
  });
  const applied = result.applied.map(({ change: { input: _, ...change }, status, requestId }) => ({
    ...change,
    status,
    requestId,
  }));
  if (result.failed !== undefined) {
    const failure: ReturnType<typeof describe> = {
      ...describe(result.failed.error),
      kind: result.failed.change.kind,
      key: result.failed.change.key,
    };
    if (json) print(JSON.stringify({ ok: false, applied, error: failure }, null, 2));
    else
      process.stderr.write(
        `${result.failed.change.action} ${String(failure.kind)}/${String(failure.key)} failed: ${failure.message}${failure.requestId ? ` (request ${String(failure.requestId)})` : ''}\n`,
      );
    return EXIT.failed;
  }
  if (json) print(JSON.stringify({ ok: true, applied, summary }, null, 2));
  else print(`Applied ${applied.length} change(s).`);
  return EXIT.ok;
}

/** `text` without the key, should an argument typed by mistake (the key itself) be echoed. */
function scrub(text: string): string {
  return redact(text, process.env.SVC_WORKSPACE_KEY);
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Unusable settings the client refuses are usage errors too.
    if (error instanceof UsageError || error instanceof WorkspaceConfigError) {
      process.stderr.write(`${scrub((error as Error).message)}\n\n${usage}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    process.stderr.write(`${scrub(String(describe(error).message))}\n`);
    process.exitCode = EXIT.failed;
  },
);
