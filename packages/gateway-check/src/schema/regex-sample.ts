// A sample string for a JSON Schema `pattern`, for the regular-expression subset schema libraries
// emit: literals, escapes, classes, groups, alternation and quantifiers. Lookarounds and
// back-references are not generated. The result is always verified against the pattern.

const CANDIDATES = [
  ...'a1xA_-.z9Z0 ',
  ...'bcdefghijklmnopqrstuvwyBCDEFGHIJKLMNOPQRSTUVWXY2345678',
  ...'@:/+#%&=!?,;~*()[]{}<>$^|\\\'"`',
];

class Unsupported extends Error {}

/** A character matched by `atom` (a class, an escape or `.`), found by testing candidates. */
function pickChar(atom: string): string {
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${atom})$`, 'u');
  } catch {
    throw new Unsupported(`cannot read ${atom}`);
  }
  const hit = CANDIDATES.find((c) => re.test(c));
  if (hit === undefined) throw new Unsupported(`no printable character matches ${atom}`);
  return hit;
}

interface Cursor {
  readonly source: string;
  at: number;
}

function readClass(cur: Cursor): string {
  const start = cur.at;
  cur.at++; // [
  if (cur.source[cur.at] === '^') cur.at++;
  if (cur.source[cur.at] === ']') cur.at++;
  while (cur.at < cur.source.length && cur.source[cur.at] !== ']') {
    cur.at += cur.source[cur.at] === '\\' ? 2 : 1;
  }
  if (cur.at >= cur.source.length) throw new Unsupported('unterminated character class');
  cur.at++; // ]
  return pickChar(cur.source.slice(start, cur.at));
}

function readEscape(cur: Cursor): string {
  const next = cur.source[cur.at + 1];
  if (next === undefined) throw new Unsupported('trailing backslash');
  if (/[1-9kbB]/.test(next)) throw new Unsupported(`\\${next} is not generated`);
  let length = 2;
  if (next === 'u')
    length = cur.source[cur.at + 2] === '{' ? cur.source.indexOf('}', cur.at) - cur.at + 1 : 6;
  else if (next === 'x') length = 4;
  else if (next === 'p' || next === 'P') length = cur.source.indexOf('}', cur.at) - cur.at + 1;
  else if (next === 'c') length = 3;
  if (length <= 0) throw new Unsupported('malformed escape');
  const atom = cur.source.slice(cur.at, cur.at + length);
  cur.at += length;
  return pickChar(atom);
}

/** `{n}`, `{n,}`, `{n,m}`, `*`, `+`, `?` (lazy or not) → the smallest repetition count. */
function readQuantifier(cur: Cursor): number {
  const c = cur.source[cur.at];
  let min = 1;
  if (c === '*' || c === '?') {
    min = 0;
    cur.at++;
  } else if (c === '+') {
    cur.at++;
  } else if (c === '{') {
    const match = /^\{(\d+)(,\d*)?\}/.exec(cur.source.slice(cur.at));
    if (!match) return 1; // a literal `{`
    min = Number(match[1]);
    cur.at += match[0].length;
  } else return 1;
  if (cur.source[cur.at] === '?') cur.at++;
  if (min > 256) throw new Unsupported('repetition too long to generate');
  return min;
}

function readAlternation(cur: Cursor): string {
  const first = readSequence(cur);
  while (cur.source[cur.at] === '|') {
    cur.at++;
    readSequence(cur); // only the first alternative is generated
  }
  return first;
}

function readSequence(cur: Cursor): string {
  let out = '';
  while (cur.at < cur.source.length) {
    const c = cur.source[cur.at]!;
    if (c === '|' || c === ')') break;
    let atom: string;
    if (c === '^' || c === '$') {
      cur.at++;
      continue;
    }
    if (c === '(') {
      cur.at++;
      if (cur.source[cur.at] === '?') {
        if (cur.source[cur.at + 1] === ':') cur.at += 2;
        else if (cur.source[cur.at + 1] === '<' && /[A-Za-z]/.test(cur.source[cur.at + 2] ?? '')) {
          cur.at = cur.source.indexOf('>', cur.at) + 1;
        } else throw new Unsupported('lookarounds are not generated');
      }
      atom = readAlternation(cur);
      if (cur.source[cur.at] !== ')') throw new Unsupported('unbalanced group');
      cur.at++;
    } else if (c === '[') atom = readClass(cur);
    else if (c === '\\') atom = readEscape(cur);
    else if (c === '.') {
      atom = 'a';
      cur.at++;
    } else {
      atom = c;
      cur.at++;
    }
    out += atom.repeat(readQuantifier(cur));
    if (out.length > 4096) throw new Unsupported('sample too long');
  }
  return out;
}

/**
 * A string matching `pattern` (ECMA-262, unanchored as JSON Schema reads it), or `undefined` with
 * the reason when the pattern uses something this sampler does not generate.
 */
export function samplePattern(pattern: string): { value: string } | { skip: string } {
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    return { skip: `pattern ${JSON.stringify(pattern)} is not an ECMA-262 regular expression` };
  }
  try {
    const cur: Cursor = { source: pattern, at: 0 };
    const value = readAlternation(cur);
    if (cur.at === pattern.length && re.test(value)) return { value };
  } catch (error) {
    if (!(error instanceof Unsupported)) throw error;
    return { skip: `pattern ${JSON.stringify(pattern)}: ${error.message}` };
  }
  return { skip: `pattern ${JSON.stringify(pattern)}: no sample found` };
}
