/**
 * Whether check `id` is selected by `--only` patterns: a pattern selects the ids it equals, the ids
 * it prefixes at a `:` boundary (`auth-bearer`, `auth-bearer:invoke`), or the ids it matches with
 * `*` as a wildcard (`*:wrong-token`). No patterns select everything.
 */
export function isSelected(id: string, patterns: readonly string[]): boolean {
  if (patterns.length === 0) return true;
  return patterns.some((pattern) => {
    if (id === pattern || id.startsWith(`${pattern}:`)) return true;
    if (!pattern.includes('*')) return false;
    const source = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return new RegExp(`^${source.join('.*')}$`).test(id);
  });
}
