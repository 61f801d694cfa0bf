/**
 * Classification of IP addresses into the special-purpose ranges a callback must never reach.
 * Pure and Web-standard: the only parser used is WHATWG `URL`, so every textual form a URL host
 * can take (integer, hex, octal, short, percent-encoded, IPv4-mapped IPv6 …) is judged after the
 * same normalisation `fetch` applies.
 */

/**
 * Why an address is not a public unicast address.
 *
 * @example
 * const reason: AddressRefusal = 'loopback_address';
 */
export type AddressRefusal =
  | 'unspecified_address'
  | 'loopback_address'
  | 'private_address'
  | 'link_local_address'
  | 'cgnat_address'
  | 'multicast_address'
  | 'broadcast_address'
  | 'reserved_address'
  | 'benchmark_address'
  | 'documentation_address'
  | 'ipv4_mapped_address';

/**
 * A parsed IP address: IPv4 as an unsigned 32-bit number, IPv6 as eight 16-bit words.
 *
 * @example
 * const loopback: IpAddress = { v: 4, n: 0x7f000001 };
 */
export type IpAddress =
  | { readonly v: 4; readonly n: number }
  | { readonly v: 6; readonly w: readonly number[] };

const V4_RANGES: ReadonlyArray<readonly [string, number, AddressRefusal]> = [
  ['0.0.0.0', 8, 'unspecified_address'], // "this network"; 0.0.0.0 reaches localhost on Linux
  ['10.0.0.0', 8, 'private_address'],
  ['100.64.0.0', 10, 'cgnat_address'], // also holds some clouds' metadata (100.100.100.200)
  ['127.0.0.0', 8, 'loopback_address'],
  ['169.254.0.0', 16, 'link_local_address'], // cloud metadata 169.254.169.254
  ['172.16.0.0', 12, 'private_address'],
  ['192.0.0.0', 24, 'reserved_address'], // IETF protocol assignments
  ['192.0.2.0', 24, 'documentation_address'],
  ['192.88.99.0', 24, 'reserved_address'], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16, 'private_address'],
  ['198.18.0.0', 15, 'benchmark_address'],
  ['198.51.100.0', 24, 'documentation_address'],
  ['203.0.113.0', 24, 'documentation_address'],
  ['224.0.0.0', 4, 'multicast_address'],
  ['255.255.255.255', 32, 'broadcast_address'], // before 240/4, which contains it
  ['240.0.0.0', 4, 'reserved_address'],
];

const DOTTED_QUAD = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function parseDottedQuad(text: string): number | undefined {
  const match = DOTTED_QUAD.exec(text);
  if (!match) return undefined;
  let n = 0;
  for (const part of match.slice(1)) {
    const octet = Number(part);
    if (octet > 255) return undefined;
    n = n * 256 + octet;
  }
  return n;
}

const V4_TABLE: ReadonlyArray<readonly [number, number, AddressRefusal]> = V4_RANGES.map(
  ([base, len, reason]) => [parseDottedQuad(base)!, len, reason] as const,
);

/**
 * Classifies an IPv4 address given as an unsigned 32-bit number.
 *
 * @example
 * classifyIpv4(0x7f000001); // 'loopback_address'
 * classifyIpv4(0x08080808); // 'public'
 */
function classifyIpv4(n: number): AddressRefusal | 'public' {
  for (const [base, len, reason] of V4_TABLE) {
    if ((n ^ base) >>> (32 - len) === 0) return reason;
  }
  return 'public';
}

/** Parses the canonical IPv6 text `URL` produces (hex words, one optional `::`, no brackets). */
function parseCanonicalIpv6(text: string): number[] | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const toWords = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((word) => Number.parseInt(word, 16));
  const head = toWords(halves[0]!);
  const tail = halves.length === 2 ? toWords(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const words = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return words.every((word) => Number.isInteger(word) && word >= 0 && word <= 0xffff)
    ? words
    : undefined;
}

/**
 * Parses an IP literal in any form WHATWG `URL` accepts as a host (`127.1`, `0x7f000001`,
 * `::ffff:127.0.0.1`, `[::1]` …). Returns `undefined` for anything that is not an IP literal,
 * such as a domain name or an IPv6 address with a zone id.
 *
 * @example
 * parseIpLiteral('0177.0.0.1'); // { v: 4, n: 2130706433 }
 * parseIpLiteral('example.com'); // undefined
 */
export function parseIpLiteral(text: string): IpAddress | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  let host: string;
  try {
    host = new URL(bare.includes(':') ? `http://[${bare}]/` : `http://${bare}/`).hostname;
  } catch {
    return undefined;
  }
  if (host.startsWith('[')) {
    const w = parseCanonicalIpv6(host.slice(1, -1));
    return w ? { v: 6, w } : undefined;
  }
  const n = parseDottedQuad(host);
  return n === undefined ? undefined : { v: 4, n };
}

function v4FromWords(high: number, low: number): number {
  return high * 0x10000 + low;
}

/** `true` when the first `bits` bits of `w` equal those of `prefix` (zero-padded). */
function hasPrefix(w: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; bits > 0; i++, bits -= 16) {
    const take = Math.min(bits, 16);
    if ((w[i]! ^ (prefix[i] ?? 0)) >>> (16 - take) !== 0) return false;
  }
  return true;
}

/** An embedded IPv4 address decides only when it is itself non-public. */
function embedded(n: number, otherwise: AddressRefusal | 'public'): AddressRefusal | 'public' {
  const inner = classifyIpv4(n >>> 0);
  return inner === 'public' ? otherwise : inner;
}

/**
 * Classifies an IPv6 address given as eight 16-bit words. IPv4-mapped and IPv4-compatible forms
 * are always refused (reporting the embedded address's range when it is special); NAT64 and 6to4
 * are refused when the IPv4 address they embed is special; anything outside global unicast
 * `2000::/3` (and the NAT64 prefix) is reserved.
 *
 * @example
 * classifyIpv6([0, 0, 0, 0, 0, 0, 0, 1]); // 'loopback_address'
 */
function classifyIpv6(w: readonly number[]): AddressRefusal | 'public' {
  const zeros = (from: number, to: number): boolean => w.slice(from, to).every((x) => x === 0);
  const low32 = v4FromWords(w[6]!, w[7]!);
  if (zeros(0, 8)) return 'unspecified_address';
  if (zeros(0, 7) && w[7] === 1) return 'loopback_address';
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible): sockets treat them as the IPv4 host.
  if (zeros(0, 5) && (w[5] === 0xffff || w[5] === 0)) return embedded(low32, 'ipv4_mapped_address');
  if (hasPrefix(w, [0x64, 0xff9b], 96)) return embedded(low32, 'public'); // NAT64 well-known
  if (hasPrefix(w, [0x64, 0xff9b, 0x1], 48)) return 'reserved_address'; // local-use NAT64
  if (hasPrefix(w, [0x2002], 16)) return embedded(v4FromWords(w[1]!, w[2]!), 'public'); // 6to4
  if (hasPrefix(w, [0x2001, 0], 32)) {
    // Teredo: server address in clear, client address bit-inverted.
    const server = embedded(v4FromWords(w[2]!, w[3]!), 'reserved_address');
    return server !== 'reserved_address' ? server : embedded(~low32, 'reserved_address');
  }
  if (hasPrefix(w, [0x2001, 0x2], 48)) return 'benchmark_address';
  if (hasPrefix(w, [0x2001, 0xdb8], 32)) return 'documentation_address';
  if (hasPrefix(w, [0x2001], 23)) return 'reserved_address'; // IETF protocol assignments
  if (hasPrefix(w, [0x3fff], 20)) return 'documentation_address';
  if (hasPrefix(w, [0xfc00], 7)) return 'private_address'; // unique local
  if (hasPrefix(w, [0xfe80], 10)) return 'link_local_address';
  if (hasPrefix(w, [0xfec0], 10)) return 'private_address'; // deprecated site-local
  if (hasPrefix(w, [0xff00], 8)) return 'multicast_address';
  if (!hasPrefix(w, [0x2000], 3)) return 'reserved_address'; // not global unicast
  return 'public';
}

/**
 * Classifies a parsed address.
 *
 * @example
 * classifyIp(parseIpLiteral('::ffff:7f00:1')!); // 'loopback_address'
 */
export function classifyIp(address: IpAddress): AddressRefusal | 'public' {
  return address.v === 4 ? classifyIpv4(address.n) : classifyIpv6(address.w);
}
