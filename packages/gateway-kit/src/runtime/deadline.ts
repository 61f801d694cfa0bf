/**
 * The instant (epoch ms) of a validated `deadlineAt`, or `Infinity` without one. RFC 3339 allows a
 * lower-case `t`/`z`, which `Date.parse` does not read, hence the upper-casing.
 */
export function deadlineOf(deadlineAt: string | undefined): number {
  return deadlineAt === undefined ? Infinity : Date.parse(deadlineAt.toUpperCase());
}
