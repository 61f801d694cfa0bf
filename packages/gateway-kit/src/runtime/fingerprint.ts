/**
 * JSON with object keys sorted at every level, so that two requests meaning the same thing have
 * the same text whatever order their keys came in.
 *
 * @example
 * canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }); // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  // Loops that append to one string: this runs on every idempotent invoke's input.
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${text}]`;
  }
  const keys = Object.keys(value).sort();
  let text = '{';
  for (const key of keys) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    text += `${text.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${text}}`;
}

/** A random identifier with a readable prefix, e.g. `job_3f9c…` (a v4 UUID: 122 random bits). */
export function randomId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`;
}

// Every id the gateway hands out: a prefix, `_`, then 32 hex digits (random or from an idempotency
// scope), for jobs of approvals followed by `_` and the approval's time in base 36. Leaves room.
const ISSUED = /^[a-z]+_[0-9A-Za-z_-]{1,96}$/;

/**
 * Whether `id` could be one the gateway handed out under `prefix` (see {@link randomId}). A path
 * id that could not (a NUL, kilobytes of text) is answered as unknown without asking the store:
 * some stores refuse such keys with an error (Postgres text holds no NUL, Durable Object keys end
 * at 2 KiB), which would otherwise become a 500.
 *
 * @example
 * couldBeIssued('job', 'job_3f9c0a…'); // true
 * couldBeIssued('job', 'job_\u0000'); // false
 */
export function couldBeIssued(prefix: string, id: string): boolean {
  return id.startsWith(prefix) && id.charCodeAt(prefix.length) === 95 && ISSUED.test(id);
}
