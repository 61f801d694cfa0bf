import * as v from 'valibot';

const ORGANIZATION_ID_MESSAGE =
  '`organizationId` must never be sent: the workspace is derived from the key';

/**
 * A strict object for request bodies: unknown fields are refused, and `organizationId`
 * gets a message of its own because the contract forbids it explicitly. Messages never
 * quote the input (the path names the field).
 */
export function writerObject<const E extends v.ObjectEntries>(
  entries: E,
): v.StrictObjectSchema<E, v.ErrorMessage<v.StrictObjectIssue>> {
  return v.strictObject(entries, (issue) => {
    // An entry that is not part of the schema.
    if (issue.expected === 'never') {
      return issue.input === 'organizationId' ? ORGANIZATION_ID_MESSAGE : 'Unknown field';
    }
    // Key issues (a missing entry) carry a path; a wrong-type value does not yet.
    return issue.path === undefined ? 'Expected an object' : 'Required';
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
 * Format of the slugs `slugify` produces: lower-case letters and digits, words joined by
 * single `-` or `_`. The writer does not require it: the contract fixes no slug format, so
 * a slug made by the service (e.g. `sales.playbook`) must stay usable.
 */
export const SLUG_PATTERN: RegExp = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;

/**
 * Schema of a slug as the writer accepts it: any non-blank string of at most 128 characters
 * that can address its own resource as one path segment (no `/`, not `.` or `..`).
 */
export const slug: v.SchemaWithPipe<
  readonly [
    v.StringSchema<string>,
    v.CheckAction<string, string>,
    v.MaxLengthAction<string, 128, string>,
    v.CheckAction<string, string>,
    v.CheckAction<string, string>,
  ]
> = v.pipe(
  v.string('Expected a string'),
  v.check((value) => value.trim() !== '', 'Must not be empty'),
  v.maxLength(128, 'Must be at most 128 characters'),
  v.check((value) => !value.includes('/'), 'Must not contain "/"'),
  v.check((value) => value !== '.' && value !== '..', 'Must not be "." or ".."'),
);
