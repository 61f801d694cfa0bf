import type { Action } from '../actions/define-action.ts';
import { type GatewayLogger, logWarning } from '../runtime/logger.ts';

// The schema lint of the manifest: what an action's input schema enforces but the published JSON
// Schema cannot show.

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The manifest publishes an input schema in JSON Schema's *input* mode: a `v.transform` ends what
 * can be published, so checks after it (`v.pipe(v.string(), v.transform(Number), v.number())`)
 * are enforced on invoke but invisible to the caller. Says so once per place, as a warning.
 * `createGateway` runs it on its actions.
 *
 * @example
 * warnAboutUnpublishedChecks(options.actions, logger);
 */
export function warnAboutUnpublishedChecks(
  actions: readonly Action[],
  logger: GatewayLogger,
): void {
  for (const action of actions) {
    for (const path of checksAfterTransform(action.input, 'input', new Set())) {
      logWarning(
        logger,
        `Action "${action.id}": ${path} validates after a transform; the manifest publishes only what comes before it. Check the raw input before transforming (e.g. v.pipe(v.string(), v.regex(/^\\d+$/), v.transform(Number))) so callers see the rule.`,
        { actionId: action.id, path },
      );
    }
  }
}

interface SchemaNode {
  readonly kind?: string;
  readonly type?: string;
  readonly pipe?: readonly SchemaNode[];
  readonly entries?: Record<string, SchemaNode>;
  readonly item?: SchemaNode;
  readonly items?: readonly SchemaNode[];
  readonly wrapped?: SchemaNode;
  readonly options?: readonly SchemaNode[];
  readonly value?: SchemaNode;
  readonly rest?: SchemaNode;
}

/** Paths (`input.count`) of pipes with a validation or schema after a transformation. */
function checksAfterTransform(node: unknown, path: string, seen: Set<unknown>): string[] {
  if (!isObject(node) || seen.has(node) || seen.size > 10_000) return [];
  seen.add(node);
  const schema = node as SchemaNode;
  const found: string[] = [];
  if (Array.isArray(schema.pipe)) {
    const firstTransform = schema.pipe.findIndex((step) => step?.kind === 'transformation');
    if (
      firstTransform >= 0 &&
      schema.pipe
        .slice(firstTransform + 1)
        .some((step) => step?.kind === 'validation' || step?.kind === 'schema')
    ) {
      found.push(path);
    }
    for (const step of schema.pipe.slice(1)) found.push(...checksAfterTransform(step, path, seen));
  }
  if (isObject(schema.entries)) {
    for (const [key, entry] of Object.entries(schema.entries)) {
      found.push(...checksAfterTransform(entry, `${path}.${key}`, seen));
    }
  }
  for (const child of [schema.item, schema.wrapped, schema.value, schema.rest]) {
    found.push(...checksAfterTransform(child, child === schema.item ? `${path}[]` : path, seen));
  }
  for (const list of [schema.items, schema.options]) {
    if (Array.isArray(list))
      for (const child of list) found.push(...checksAfterTransform(child, path, seen));
  }
  return found;
}
