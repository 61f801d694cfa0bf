import * as v from 'valibot';

const ORGANIZATION_ID_MESSAGE =
  '`organizationId` must never be sent: the workspace is derived from the key';

/**
 * A strict object for request bodies: unknown fields are refused, and `organizationId`
 * gets a message of its own because the contract forbids it explicitly.
 */
export function writerObject<const E extends v.ObjectEntries>(
  entries: E,
): v.StrictObjectSchema<E, v.ErrorMessage<v.StrictObjectIssue>> {
  return v.strictObject(entries, (issue) => {
    if (issue.expected !== 'never') return `Expected an object but received ${issue.received}`;
    return issue.received === '"organizationId"'
      ? ORGANIZATION_ID_MESSAGE
      : `Unknown field ${issue.received}: not part of the workspace API v1`;
  });
}

/** A string with at least one non-whitespace character. */
export const nonEmptyString: v.SchemaWithPipe<
  readonly [v.StringSchema<string>, v.CheckAction<string, string>]
> = v.pipe(
  v.string('Expected a string'),
  v.check((value) => value.trim() !== '', 'Must not be empty'),
);

/** Any string (empty allowed). */
export const text: v.StringSchema<string> = v.string('Expected a string');

/** A list of non-empty strings. */
export const stringList: v.ArraySchema<typeof nonEmptyString, string> = v.array(
  nonEmptyString,
  'Expected an array of strings',
);

/**
 * Slug format accepted by the writer: lower-case letters and digits, words joined by
 * single `-` or `_`, at most 128 characters. The contract does not fix a format; this
 * one is what `slugify` produces and is safe in a URL path.
 */
export const SLUG_PATTERN: RegExp = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;

/** Schema of a slug (see `SLUG_PATTERN`). */
export const slug: v.SchemaWithPipe<
  readonly [
    v.StringSchema<string>,
    v.RegexAction<string, string>,
    v.MaxLengthAction<string, 128, string>,
  ]
> = v.pipe(
  v.string('Expected a string'),
  v.regex(SLUG_PATTERN, 'Must be a slug: lower-case letters and digits joined by "-" or "_"'),
  v.maxLength(128, 'Must be at most 128 characters'),
);
