import * as v from 'valibot';

// RFC 3339 date-time: seconds required, fraction optional, `Z` or an offset; hours 00–23, minutes
// and seconds 00–59 (a leap second names no instant a JavaScript clock can hold).
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** Whether the date of a {@link DATE_TIME} match is in the calendar (`Date.parse` rolls `02-30` over). */
function isCalendarDate(value: string): boolean {
  // The pipe runs this check after a failed regex too.
  const parts = DATE_TIME.exec(value);
  if (parts === null) return true;
  const year = Number(parts[1]);
  const month = Number(parts[2]);
  const day = Number(parts[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  // Day 0 of the next month is the last day of this one, in a leap year (2000).
  const lastDay = new Date(Date.UTC(2000, month, 0)).getUTCDate();
  const leapYear = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && !leapYear ? 28 : lastDay);
}

/**
 * A string in the contract's `date-time` format (RFC 3339) naming a real instant: a day its
 * month has, February 29 only in leap years.
 *
 * @example
 * v.is(DateTimeSchema, '2026-11-22T10:00:00Z'); // true
 * v.is(DateTimeSchema, '2026-02-29T10:00:00Z'); // false
 */
export const DateTimeSchema: v.GenericSchema<string> = /* @__PURE__ */ v.pipe(
  v.string(),
  v.regex(DATE_TIME, 'Expected an RFC 3339 date-time'),
  v.check(isCalendarDate, 'Expected a real date-time'),
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
