/**
 * Derives a slug from a display name the way the emulator does when `slug` is omitted:
 * accents stripped, lower-cased, every run of other characters turned into one `-`.
 * Returns `''` when nothing usable is left (e.g. a name made only of emoji).
 *
 * @example
 * ```ts
 * slugify('Sales Playbook — Q3 (EMEA)'); // 'sales-playbook-q3-emea'
 * ```
 */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 128)
    .replace(/-+$/, '');
}
