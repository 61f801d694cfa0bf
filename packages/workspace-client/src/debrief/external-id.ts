/**
 * Builds a stable `externalId` from the identity of what the debrief is about (never from
 * the time the job ran or a random id), so re-running a workflow updates the same debrief
 * instead of creating a duplicate. Parts are trimmed, lower-cased, runs of characters other
 * than `a-z 0-9 . _ -` become `-`, and parts are joined with `:`.
 *
 * @example
 * ```ts
 * debriefExternalId('pipeline-review', 'ACME Corp', '2025-W01'); // 'pipeline-review:acme-corp:2025-w01'
 * ```
 */
export function debriefExternalId(...parts: (string | number)[]): string {
  const cleaned = parts.map((part) =>
    String(part)
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, ''),
  );
  if (cleaned.length === 0 || cleaned.some((part) => part === '' || /^\.+$/.test(part))) {
    throw new TypeError('debriefExternalId needs at least one part, and no empty or dot-only part');
  }
  return cleaned.join(':');
}
