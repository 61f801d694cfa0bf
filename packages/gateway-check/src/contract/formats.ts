import * as v from 'valibot';

// RFC 3339 date-time: seconds required, fraction optional, `Z` or an offset.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/**
 * A string in the contract's `date-time` format (RFC 3339) naming a real instant.
 *
 * @example
 * v.is(DateTimeSchema, '2026-11-22T10:00:00Z'); // true
 */
export const DateTimeSchema: v.GenericSchema<string> = /* @__PURE__ */ v.pipe(
  v.string(),
  v.regex(DATE_TIME, 'Expected an RFC 3339 date-time'),
  v.check((value) => !Number.isNaN(Date.parse(value)), 'Expected a real date-time'),
);

/**
 * An absolute URI (the contract's `URI` fields).
 *
 * @example
 * v.is(UriSchema, 'https://gateway.example.com/v1/jobs/1'); // true
 */
export const UriSchema: v.GenericSchema<string> = /* @__PURE__ */ v.pipe(
  v.string(),
  v.check((value) => URL.canParse(value), 'Expected an absolute URI'),
);
