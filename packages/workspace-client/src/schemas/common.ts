import * as v from 'valibot';

const ORGANIZATION_ID_MESSAGE =
  '`organizationId` must never be sent: the workspace is derived from the key';

/**
 * A strict object for request bodies: unknown fields are refused, and `organizationId`
 * gets a message of its own because the contract forbids it explicitly. Messages never
 * quote the input (the path names the field).
 */
// @__NO_SIDE_EFFECTS__
export function writerObject<const E extends v.ObjectEntries>(
  entries: E,
): v.StrictObjectSchema<E, v.ErrorMessage<v.StrictObjectIssue>> {
  return /* @__PURE__ */ v.strictObject(entries, (issue) => {
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
> = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('Expected a string'),
  /* @__PURE__ */ v.check((value) => value.trim() !== '', 'Must not be empty'),
);

/** Any string (empty allowed). */
export const text: v.StringSchema<string> = /* @__PURE__ */ v.string('Expected a string');

/** A list of non-empty strings. */
export const stringList: v.ArraySchema<typeof nonEmptyString, string> = /* @__PURE__ */ v.array(
  nonEmptyString,
  'Expected an array of strings',
);

/**
 * Format of the slugs `slugify` produces: lower-case letters and digits, words joined by
 * single `-` or `_`. The writer does not require it: the contract fixes no slug format, so
 * a slug made by the service (e.g. `sales.playbook`) must stay usable.
 */
export const SLUG_PATTERN: RegExp = /* @__PURE__ */ Object.freeze(/^[a-z0-9]+(?:[-_][a-z0-9]+)*$/);

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
> = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('Expected a string'),
  /* @__PURE__ */ v.check((value) => value.trim() !== '', 'Must not be empty'),
  /* @__PURE__ */ v.maxLength(128, 'Must be at most 128 characters'),
  /* @__PURE__ */ v.check((value) => !value.includes('/'), 'Must not contain "/"'),
  /* @__PURE__ */ v.check((value) => value !== '.' && value !== '..', 'Must not be "." or ".."'),
);
