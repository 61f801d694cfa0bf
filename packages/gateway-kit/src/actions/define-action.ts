import * as v from 'valibot';
import type { Principal } from '../auth/principal.ts';
import type { InvokeRequest } from '../contract/invoke-request.ts';
import type { ExecutionMode, SideEffectLevel } from '../contract/manifest.ts';
import { assertOptions, is, strictOptionsObject } from '../runtime/option-schemas.ts';
import type { ActionRejection } from './action-rejection.ts';
import type { ActionInputSchema, InferActionInput } from './input-schema.ts';

export type { ActionInputSchema, InferActionInput, StandardInputSchema } from './input-schema.ts';

/** What an action's `run` learns about the invocation it serves. */
export interface Invocation {
  /** The request's `invocationId`. */
  readonly invocationId: string;
  /** The request's `traceId`; absent when it sent none. */
  readonly traceId?: string;
  /** The request's `idempotencyKey`; absent when it sent none. */
  readonly idempotencyKey?: string;
  /** The request's `deadlineAt` (RFC 3339); absent when it sent none. */
  readonly deadlineAt?: string;
  /** The meeting the action runs in. */
  readonly meeting: InvokeRequest['meeting'];
  /** The meeting session that invoked the action. */
  readonly session: InvokeRequest['session'];
  /** Free-form context from the hosted service, as sent. */
  readonly context: Record<string, unknown>;
}

/** Lets an async action report progress while its job runs. */
export interface JobHandle {
  /** The id of the job the action runs as. */
  readonly jobId: string;
  /** Publishes interim text on the job resource (what `GET /v1/jobs/{jobId}` shows while running). */
  progress(update: {
    readonly outputText?: string;
    readonly machineSummary?: string;
  }): Promise<void>;
}

/** The second argument of `run`. */
export interface ActionContext {
  /** The invocation the run serves. */
  readonly invocation: Invocation;
  /** Who made the request (for an approved job, a JSON copy of the principal that asked). */
  readonly principal: Principal;
  /**
   * Aborts when the run is no longer wanted: the client disconnected (sync), the job was cancelled
   * (async), `deadlineAt` passed or `timeoutMs` ran out. Made on first read (a run that never
   * reads it costs no AbortController): destructure it or read `context.signal`; a spread copy
   * of the context (`{ ...context }`) does not carry it.
   */
  readonly signal: AbortSignal;
  /** Present when the action runs as a job (`executionMode: 'async'`, or after an approval). */
  readonly job?: JobHandle;
}

/** A successful result: becomes a `completed` invoke response. */
export interface ActionResult {
  /** Text the assistant may say. */
  readonly outputText?: string;
  /** A compact form of the result, for the model. */
  readonly machineSummary?: string;
  /** Version label of the shape of `data`. */
  readonly dataSchemaVersion?: string;
  /** The result as a JSON object. */
  readonly data?: Record<string, unknown>;
}

/** Everything `defineAction` accepts. Only `id`, `input` and `run` are required. */
export interface ActionDefinition<TSchema extends ActionInputSchema> {
  /**
   * Stable identifier: a letter or digit, then letters, digits, `.`, `_` or `-`, at most 128
   * characters (`[A-Za-z0-9][A-Za-z0-9._-]*`). Case matters: `Lookup` and `lookup` are two ids.
   */
  readonly id: string;
  /** Name the hosted service may use instead of the id; defaults to `id`. */
  readonly name?: string;
  /** Short human title; defaults to `name`. */
  readonly title?: string;
  /** What the action does, for the meeting assistant to decide when to call it. */
  readonly description?: string;
  /**
   * Schema of `action.input`, published as JSON Schema in the manifest: a valibot schema, or any
   * Standard Schema with Standard JSON Schema (zod ≥ 4.2, arktype ≥ 2.1, valibot through
   * `toStandardJsonSchema`). Its root must be an object.
   */
  readonly input: TSchema;
  /** Defaults to `'sync'`. */
  readonly executionMode?: ExecutionMode;
  /** Defaults to `false`. */
  readonly requiresApproval?: boolean;
  /** Defaults to `'read'`. */
  readonly sideEffectLevel?: SideEffectLevel;
  /** Whether running twice with the same input has the effect of running once. Defaults to `false`. */
  readonly idempotent?: boolean;
  /**
   * Upper bound for one run in milliseconds, applied even without a `deadlineAt`. Defaults to
   * 600 000 (10 minutes) for `executionMode: 'async'` and `requiresApproval: true` actions and to
   * 30 000 for the others, also when the gateway's `approvals.policy` sends one through an approval.
   */
  readonly timeoutMs?: number;
  /**
   * Business checks answered at invoke time, once the input is valid: before `run` for a sync
   * action, before a job is accepted (async) and before an approval is asked for, whether by
   * `requiresApproval` or by the gateway's `approvals.policy`. Return (or throw) a {@link reject}
   * to answer `rejected` at once; return `undefined` to go on. Bounded by the action's time
   * budget (`rejected` with `deadline_exceeded` when it runs out); any other exception is a
   * `500 internal_error`. Keep it fast.
   */
  readonly precheck?: (
    input: InferActionInput<TSchema>,
    context: Omit<ActionContext, 'job'>,
  ) => ActionRejection | undefined | Promise<ActionRejection | undefined>;
  /**
   * Does the work: return an {@link ActionResult} (`completed`), or return or throw a
   * {@link reject} (`rejected`; a job `failed` with that error). Any other exception is logged and
   * answered `internal_error`.
   */
  readonly run: (
    input: InferActionInput<TSchema>,
    context: ActionContext,
  ) => ActionResult | ActionRejection | Promise<ActionResult | ActionRejection>;
}

/** A defined action, with every default filled in. */
export interface Action<TSchema extends ActionInputSchema = ActionInputSchema> {
  /** The action's id. */
  readonly id: string;
  /** The action's name; `id` unless given. */
  readonly name: string;
  /** Short human title; `name` unless given. */
  readonly title: string;
  /** What the action does; `''` unless given. */
  readonly description: string;
  /** Schema of `action.input`. */
  readonly input: TSchema;
  /** `sync` unless given. */
  readonly executionMode: ExecutionMode;
  /** `false` unless given. */
  readonly requiresApproval: boolean;
  /** `read` unless given. */
  readonly sideEffectLevel: SideEffectLevel;
  /** `false` unless given. */
  readonly idempotent: boolean;
  /** Upper bound for one run, in ms: 600 000 for async and approval actions, else 30 000, unless given. */
  readonly timeoutMs: number;
  // Method syntax (bivariant) so actions with different input types fit in one `actions` list.
  /** The definition's `precheck`; absent when it had none. */
  precheck?(
    input: InferActionInput<TSchema>,
    context: Omit<ActionContext, 'job'>,
  ): ActionRejection | undefined | Promise<ActionRejection | undefined>;
  /** The definition's `run`. */
  run(
    input: InferActionInput<TSchema>,
    context: ActionContext,
  ): ActionResult | ActionRejection | Promise<ActionResult | ActionRejection>;
}

const OptionalText = /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string('expected a string.'));
const OptionalFlag = /* @__PURE__ */ v.optional(
  /* @__PURE__ */ v.boolean('expected true or false.'),
);

// Every key of ActionDefinition with its schema (a key added to the interface without one here
// fails the typecheck). `id`'s form, `input` and `timeoutMs` are createGateway's to judge.
const ENTRIES = {
  id: /* @__PURE__ */ v.string('expected a string.'),
  name: OptionalText,
  title: OptionalText,
  description: OptionalText,
  input: /* @__PURE__ */ is(
    (input) => (typeof input === 'object' && input !== null) || typeof input === 'function',
    'expected a schema (valibot, zod, arktype: any Standard Schema).',
  ),
  executionMode: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.picklist(['sync', 'async'], "expected 'sync' or 'async'."),
  ),
  requiresApproval: OptionalFlag,
  sideEffectLevel: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.picklist(
      ['read', 'write', 'destructive'],
      "expected 'read', 'write' or 'destructive'.",
    ),
  ),
  idempotent: OptionalFlag,
  timeoutMs: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.unknown()),
  precheck: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ is(
      (precheck) => typeof precheck === 'function',
      'expected (input, context) => rejection or undefined.',
    ),
  ),
  run: /* @__PURE__ */ is(
    (run) => typeof run === 'function',
    'expected (input, context) => result.',
  ),
} satisfies { readonly [Key in keyof ActionDefinition<ActionInputSchema>]-?: v.GenericSchema };

const DefinitionSchema = /* @__PURE__ */ strictOptionsObject(
  ENTRIES,
  'expected an action definition.',
);

/**
 * Declares an action the gateway offers. `run` receives the input already validated by `input`
 * (typed from the schema) and answers with a result, or refuses with {@link reject}. Throws a
 * `GatewayConfigError` for a key it does not know or a value of the wrong kind (also for
 * JavaScript callers), naming the key, never its value.
 *
 * @example
 * import * as v from 'valibot'; // or zod, arktype: any Standard Schema with Standard JSON Schema
 * const lookupAccount = defineAction({
 *   id: 'lookup-account',
 *   title: 'Look up an account',
 *   description: 'Finds a customer account by id.',
 *   input: v.object({ accountId: v.string() }),
 *   sideEffectLevel: 'read',
 *   idempotent: true,
 *   run: async ({ accountId }) => ({ outputText: `Account ${accountId} is active.` }),
 * });
 */
export function defineAction<TSchema extends ActionInputSchema>(
  definition: ActionDefinition<TSchema>,
): Action<TSchema> {
  // Also for JavaScript callers: a misspelt `requiresApproval` or an unknown `sideEffectLevel`
  // would otherwise publish and run the action with the defaults (no approval, `read`).
  const id = (definition as { id?: unknown } | undefined)?.id;
  assertOptions(
    DefinitionSchema,
    definition,
    typeof id === 'string' && id.length <= 128 ? `defineAction("${id}")` : 'defineAction',
    'definition',
  );
  const name = definition.name ?? definition.id;
  return Object.freeze({
    id: definition.id,
    name,
    title: definition.title ?? name,
    description: definition.description ?? '',
    input: definition.input,
    executionMode: definition.executionMode ?? 'sync',
    requiresApproval: definition.requiresApproval ?? false,
    sideEffectLevel: definition.sideEffectLevel ?? 'read',
    idempotent: definition.idempotent ?? false,
    timeoutMs:
      definition.timeoutMs ??
      (definition.executionMode === 'async' || definition.requiresApproval ? 600_000 : 30_000),
    ...(definition.precheck ? { precheck: definition.precheck } : {}),
    run: definition.run,
  });
}
