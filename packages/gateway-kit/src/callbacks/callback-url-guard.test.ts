import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { CallbackConfigError } from './callback-config-error.ts';
import {
  type CallbackUrlRefusal,
  callbackUrlRefusalMessage,
  checkCallbackUrl,
  checkCallbackUrlResolved,
} from './callback-url-guard.ts';

const reasonOf = (url: string, policy?: Parameters<typeof checkCallbackUrl>[1]) => {
  const check = checkCallbackUrl(url, policy);
  return check.ok ? 'ok' : check.reason;
};

// Teredo address whose (bit-inverted) client part is 10.0.0.1, server 65.54.227.120.
const TEREDO_PRIVATE_CLIENT = 'https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/';

const HOSTILE: ReadonlyArray<readonly [string, CallbackUrlRefusal]> = [
  // loopback, in every spelling WHATWG URL normalises to 127.0.0.1
  ['http://127.0.0.1/', 'loopback_address'],
  ['https://127.0.0.1:8443/admin', 'loopback_address'],
  ['https://127.255.255.254/', 'loopback_address'],
  ['https://2130706433/', 'loopback_address'],
  ['https://0x7f000001/', 'loopback_address'],
  ['https://0177.0.0.1/', 'loopback_address'],
  ['https://017700000001/', 'loopback_address'],
  ['https://127.1/', 'loopback_address'],
  ['https://0x7f.0x0.0x0.0x1/', 'loopback_address'],
  ['https://127.000.000.001/', 'loopback_address'],
  ['https://127.0.0.1./', 'loopback_address'],
  ['https://%31%32%37.0.0.1/', 'loopback_address'],
  ['https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/', 'loopback_address'], // fullwidth digits
  ['https://[::1]/', 'loopback_address'],
  ['https://[0:0:0:0:0:0:0:1]:443/', 'loopback_address'],
  ['https://[::ffff:127.0.0.1]/', 'loopback_address'],
  ['https://[::ffff:7f00:1]/', 'loopback_address'],
  ['https://[::127.0.0.1]/', 'loopback_address'], // IPv4-compatible
  ['https://localhost/', 'loopback_hostname'],
  ['http://localhost:3000/cb', 'loopback_hostname'],
  ['https://LOCALHOST/', 'loopback_hostname'],
  ['https://api.localhost/', 'loopback_hostname'],
  // unspecified
  ['https://0.0.0.0/', 'unspecified_address'],
  ['https://0/', 'unspecified_address'],
  ['https://[::]/', 'unspecified_address'],
  // private
  ['https://10.0.0.1/', 'private_address'],
  ['https://172.16.0.1/', 'private_address'],
  ['https://172.31.255.255/', 'private_address'],
  ['https://192.168.1.1/', 'private_address'],
  ['https://0xc0a80101/', 'private_address'],
  ['https://[fc00::1]/', 'private_address'],
  ['https://[fd12:3456:789a::1]/', 'private_address'],
  ['https://[fec0::1]/', 'private_address'],
  ['https://[::ffff:10.0.0.1]/', 'private_address'],
  ['https://[64:ff9b::10.0.0.1]/', 'private_address'], // NAT64 of 10.0.0.1
  ['https://[2002:c0a8:101::1]/', 'private_address'], // 6to4 of 192.168.1.1
  [TEREDO_PRIVATE_CLIENT, 'private_address'],
  // link-local and cloud metadata
  ['http://169.254.169.254/latest/meta-data/', 'link_local_address'],
  ['https://169.254.169.254/', 'link_local_address'],
  ['https://2852039166/', 'link_local_address'], // 169.254.169.254 as an integer
  ['https://[::ffff:a9fe:a9fe]/', 'link_local_address'],
  ['https://[fe80::1]/', 'link_local_address'],
  ['https://metadata.google.internal/computeMetadata/v1/', 'local_hostname'],
  // CGNAT (also Alibaba Cloud metadata)
  ['https://100.64.0.1/', 'cgnat_address'],
  ['https://100.100.100.200/', 'cgnat_address'],
  // multicast, broadcast, reserved
  ['https://224.0.0.1/', 'multicast_address'],
  ['https://239.255.255.250/', 'multicast_address'],
  ['https://[ff02::1]/', 'multicast_address'],
  ['https://255.255.255.255/', 'broadcast_address'],
  ['https://4294967295/', 'broadcast_address'],
  ['https://240.0.0.1/', 'reserved_address'],
  ['https://192.0.0.8/', 'reserved_address'],
  ['https://[100::1]/', 'reserved_address'], // discard-only
  ['https://[2001:10::1]/', 'reserved_address'],
  // benchmarking and documentation
  ['https://198.18.0.1/', 'benchmark_address'],
  ['https://198.19.255.255/', 'benchmark_address'],
  ['https://[2001:2::1]/', 'benchmark_address'],
  ['https://192.0.2.10/', 'documentation_address'],
  ['https://198.51.100.7/', 'documentation_address'],
  ['https://203.0.113.9/', 'documentation_address'],
  ['https://[2001:db8::1]/', 'documentation_address'],
  ['https://[3fff::1]/', 'documentation_address'],
  // IPv4-mapped forms are refused even for public addresses
  ['https://[::ffff:8.8.8.8]/', 'ipv4_mapped_address'],
  // local names
  ['https://printer.local/', 'local_hostname'],
  ['https://kubernetes.default.svc/', 'local_hostname'],
  ['https://router.home.arpa/', 'local_hostname'],
  ['https://intranet/', 'local_hostname'],
  ['https://hooks.corp.internal/', 'local_hostname'],
  // scheme, credentials, syntax
  ['http://example.com/callback', 'insecure_scheme'],
  ['ftp://example.com/', 'unsupported_scheme'],
  ['file:///etc/passwd', 'unsupported_scheme'],
  ['gopher://example.com:70/', 'unsupported_scheme'],
  ['javascript:alert(1)', 'unsupported_scheme'],
  ['https://user:pass@example.com/', 'credentials_in_url'],
  ['https://token@example.com/', 'credentials_in_url'],
  ['not a url', 'invalid_url'],
  ['https://1.2.3.4.5/', 'invalid_url'],
  ['https://4294967296/', 'invalid_url'],
  ['https://[fe80::1%25eth0]/', 'invalid_url'],
];

// An attacker's further spellings of "this machine" and of names that resolvers read differently.
const SPELLINGS: ReadonlyArray<readonly [string, CallbackUrlRefusal]> = [
  // empty labels and trailing dots: refused, never normalised
  ['https://localhost./', 'invalid_url'],
  ['https://localhost../', 'invalid_url'],
  ['https://LOCALHOST./', 'invalid_url'],
  ['https://localhost%2e/', 'invalid_url'], // percent-encoded dot
  ['https://localhost\u3002/', 'invalid_url'], // ideographic full stop, mapped to "."
  ['https://foo.LocalHost./', 'invalid_url'],
  ['https://localhost.localdomain./', 'invalid_url'],
  ['https://example.com./', 'invalid_url'],
  ['https://example.com../', 'invalid_url'],
  ['https://example.com.%2e/', 'invalid_url'],
  ['https://a..b.example/', 'invalid_url'],
  ['https://.example.com/', 'invalid_url'],
  ['https://hooks.corp.internal./', 'invalid_url'],
  ['https://127.0.0.1../', 'invalid_url'], // not an IP literal any more, and not a name either
  ['https://1.2.3.4../', 'invalid_url'],
  // a single trailing dot of an IPv4 literal is dropped by URL: still the address
  ['https://127.0.0.1%2e/', 'loopback_address'],
  ['https://2130706433./', 'loopback_address'],
  ['https://0.0.0.0./', 'unspecified_address'],
  // case and other encodings of names
  ['https://LOCALHOST/', 'loopback_hostname'],
  ['https://%6c%6f%63%61%6c%68%6f%73%74/', 'loopback_hostname'],
  ['https://\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3/', 'loopback_hostname'], // circled letters
  ['https://foo.LocalHost/', 'loopback_hostname'],
  ['https://a.b.localhost:8443/', 'loopback_hostname'],
  ['https://localhost.localdomain/', 'local_hostname'],
  ['https://LOCALHOST.LOCALDOMAIN/', 'local_hostname'],
  // IPv4 in decimal, octal, hex and mixed forms, upper-case hex included
  ['https://0X7F000001/', 'loopback_address'],
  ['https://0x7F.1/', 'loopback_address'],
  ['https://0177.1/', 'loopback_address'],
  ['https://0x7f.0.1/', 'loopback_address'],
  ['https://00/', 'unspecified_address'],
  ['https://0x0/', 'unspecified_address'],
  // IPv6-mapped IPv4 in every notation
  ['https://[::FFFF:127.0.0.1]/', 'loopback_address'],
  ['https://[0:0:0:0:0:ffff:7f00:1]/', 'loopback_address'],
  ['https://[::ffff:0.0.0.0]/', 'unspecified_address'],
  ['https://[::ffff:169.254.169.254]/', 'link_local_address'],
];

describe('checkCallbackUrl: an attacker’s spellings', () => {
  it.each(SPELLINGS)('refuses %s (%s)', (url, reason) => {
    expect(reasonOf(url)).toBe(reason);
  });

  it('refuses a trailing dot even for an allowed host or with allowInsecureLoopback', () => {
    expect(reasonOf('https://hooks.corp.internal./', { allowHosts: ['hooks.corp.internal'] })).toBe(
      'invalid_url',
    );
    expect(reasonOf('http://localhost./', { allowInsecureLoopback: true })).toBe('invalid_url');
  });
});

const KNOWN_REASONS: ReadonlySet<string> = new Set(HOSTILE.map(([, reason]) => reason));

describe('checkCallbackUrl: default policy', () => {
  it('lists more than 25 hostile URLs', () => {
    expect(HOSTILE.length).toBeGreaterThan(25);
  });

  it.each(HOSTILE)('refuses %s (%s)', (url, reason) => {
    expect(reasonOf(url)).toBe(reason);
  });

  it.each([
    'https://hooks.example.com/jobs',
    'https://hooks.example.com:8443/cb?tenant=42',
    'https://HOOKS.Example.com/path',
    'https://8.8.8.8/',
    'https://1.1.1.1:4443/',
    'https://172.15.255.255/', // just below 172.16/12
    'https://172.32.0.0/', // just above 172.16/12
    'https://100.63.255.255/', // just below 100.64/10
    'https://100.128.0.0/', // just above 100.64/10
    'https://169.253.255.255/',
    'https://198.17.255.255/',
    'https://198.20.0.0/',
    'https://223.255.255.255/',
    'https://[2606:4700:4700::1111]/',
    'https://[64:ff9b::808:808]/', // NAT64 of a public address
    'https://[2002:808:808::1]/', // 6to4 of a public address
  ])('accepts %s', (url) => {
    const check = checkCallbackUrl(url);
    expect(check.ok).toBe(true);
    if (check.ok) expect(check.url.href).toBe(new URL(url).href);
  });

  it('accepts URL objects as well as strings', () => {
    expect(checkCallbackUrl(new URL('https://hooks.example.com/')).ok).toBe(true);
    expect(checkCallbackUrl(new URL('https://10.0.0.1/'))).toEqual({
      ok: false,
      reason: 'private_address',
    });
  });

  it('never echoes any part of the URL in the reason', () => {
    const check = checkCallbackUrl('https://admin:s3cret-token@10.0.0.1/?key=s3cret-token');
    expect(check).toEqual({ ok: false, reason: 'credentials_in_url' });
    expect(JSON.stringify(check)).not.toContain('s3cret');
  });

  it('judges names literally: a public-looking name of a private address passes without DNS', () => {
    // Documented limitation; checkCallbackUrlResolved closes it where DNS is available.
    expect(checkCallbackUrl('https://169.254.169.254.nip.io/').ok).toBe(true);
  });
});

describe('checkCallbackUrl: allowInsecureLoopback (dev/test opt-in)', () => {
  const dev = { allowInsecureLoopback: true } as const;

  it.each([
    'http://127.0.0.1:3000/callbacks',
    'http://localhost:8080/',
    'http://api.localhost/',
    'http://[::1]:8080/',
    'http://[::ffff:127.0.0.1]/',
    'https://127.0.0.1/',
    'http://2130706433:9000/',
  ])('accepts %s', (url) => {
    expect(reasonOf(url, dev)).toBe('ok');
  });

  it.each([
    ['http://example.com/', 'insecure_scheme'],
    ['http://10.0.0.1/', 'private_address'],
    ['http://169.254.169.254/', 'link_local_address'],
    ['http://0.0.0.0:3000/', 'unspecified_address'],
    ['http://printer.local/', 'local_hostname'],
    ['http://user:pw@127.0.0.1/', 'credentials_in_url'],
  ] as const)('still refuses %s (%s)', (url, reason) => {
    expect(reasonOf(url, dev)).toBe(reason);
  });
});

describe('checkCallbackUrl: allowHosts', () => {
  const policy = { allowHosts: ['hooks.corp.internal', '10.1.2.3', 'FD00::1'] };

  it.each([
    'https://hooks.corp.internal/jobs',
    'https://HOOKS.corp.internal:444/',
    'https://10.1.2.3/',
    'https://0x0a010203/', // same address, other spelling
    'https://[fd00::1]/',
  ])('accepts %s', (url) => {
    expect(reasonOf(url, policy)).toBe('ok');
  });

  it.each([
    ['http://hooks.corp.internal/', 'insecure_scheme'],
    ['https://other.corp.internal/', 'local_hostname'],
    ['https://10.1.2.4/', 'private_address'],
    ['https://u:p@10.1.2.3/', 'credentials_in_url'],
  ] as const)('still refuses %s (%s)', (url, reason) => {
    expect(reasonOf(url, policy)).toBe(reason);
  });

  it('throws a CallbackConfigError for an entry that is not a host', () => {
    for (const entry of ['bad host', 'a..b.internal', '.corp.internal', '']) {
      expect(() => checkCallbackUrl('https://example.com/', { allowHosts: [entry] })).toThrow(
        CallbackConfigError,
      );
    }
  });

  it('takes an entry written fully qualified (one trailing dot)', () => {
    expect(reasonOf('https://hooks.corp.internal/', { allowHosts: ['hooks.corp.internal.'] })).toBe(
      'ok',
    );
  });
});

// Ranges the property covers: [first address, prefix length].
const SPECIAL_V4: ReadonlyArray<readonly [number, number]> = [
  [0x7f000000, 8], // loopback
  [0x0a000000, 8], // private
  [0xac100000, 12], // private
  [0xc0a80000, 16], // private
  [0xa9fe0000, 16], // link-local
  [0x64400000, 10], // CGNAT
];

const addressIn = (ranges: ReadonlyArray<readonly [number, number]>) =>
  fc
    .constantFrom(...ranges)
    .chain(([base, len]) =>
      fc.integer({ min: 0, max: 2 ** (32 - len) - 1 }).map((offset) => base + offset),
    );

const octets = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const hex16 = (n: number) => `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;

const spellings: ReadonlyArray<(n: number) => string> = [
  (n) => octets(n).join('.'),
  (n) => String(n),
  (n) => `0x${n.toString(16)}`,
  (n) =>
    octets(n)
      .map((o) => `0${o.toString(8)}`)
      .join('.'),
  (n) => `[::ffff:${octets(n).join('.')}]`,
  (n) => `[::ffff:${hex16(n)}]`,
];

describe('checkCallbackUrl: property', () => {
  it('refuses every loopback/private/link-local/CGNAT IPv4 address in any spelling, any port', () => {
    fc.assert(
      fc.property(
        addressIn(SPECIAL_V4),
        fc.constantFrom(...spellings),
        fc.constantFrom('http', 'https'),
        fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        (n, spell, scheme, port) => {
          const url = `${scheme}://${spell(n)}${port === undefined ? '' : `:${port}`}/cb`;
          const check = checkCallbackUrl(url);
          return !check.ok && KNOWN_REASONS.has(check.reason);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('accepts public IPv4 addresses (8.0.0.0/8) in dotted, integer and hex spelling', () => {
    fc.assert(
      fc.property(
        addressIn([[0x08000000, 8]]),
        fc.constantFrom(...spellings.slice(0, 3)),
        (n, spell) => checkCallbackUrl(`https://${spell(n)}/`).ok,
      ),
    );
  });
});

describe('checkCallbackUrlResolved', () => {
  const resolverOf = (table: Record<string, readonly string[]>) =>
    vi.fn(async (hostname: string) => {
      const addresses = table[hostname];
      if (!addresses) throw new Error('ENOTFOUND');
      return addresses;
    });

  it('accepts a name that resolves only to public addresses', async () => {
    const resolve = resolverOf({ 'hooks.example.com': ['93.184.215.14', '2606:2800:21f::1'] });
    const check = await checkCallbackUrlResolved('https://hooks.example.com/x', {}, resolve);
    expect(check.ok).toBe(true);
    expect(resolve).toHaveBeenCalledWith('hooks.example.com');
  });

  it.each([
    [['10.0.0.1']],
    [['93.184.215.14', '127.0.0.1']],
    [['::1']],
    [['::ffff:169.254.169.254']],
    [['fd00::5']],
    [['not-an-address']],
  ])('refuses a name resolving to %j', async (addresses) => {
    const resolve = resolverOf({ 'rebind.example.com': addresses });
    const check = await checkCallbackUrlResolved('https://rebind.example.com/', {}, resolve);
    expect(check).toEqual({ ok: false, reason: 'resolves_to_blocked_address' });
  });

  it('reports a failed or empty lookup as dns_lookup_failed', async () => {
    const resolve = resolverOf({ 'empty.example.com': [] });
    expect(await checkCallbackUrlResolved('https://missing.example.com/', {}, resolve)).toEqual({
      ok: false,
      reason: 'dns_lookup_failed',
    });
    expect(await checkCallbackUrlResolved('https://empty.example.com/', {}, resolve)).toEqual({
      ok: false,
      reason: 'dns_lookup_failed',
    });
  });

  it('does not resolve IP literals, allowed hosts or URLs the literal check refuses', async () => {
    const resolve = resolverOf({});
    expect((await checkCallbackUrlResolved('https://8.8.8.8/', {}, resolve)).ok).toBe(true);
    const allowed = { allowHosts: ['hooks.corp.internal'] };
    expect(
      (await checkCallbackUrlResolved('https://hooks.corp.internal/', allowed, resolve)).ok,
    ).toBe(true);
    expect(await checkCallbackUrlResolved('https://10.0.0.1/', {}, resolve)).toEqual({
      ok: false,
      reason: 'private_address',
    });
    expect(resolve).not.toHaveBeenCalled();
  });

  it('lets loopback answers through only with allowInsecureLoopback', async () => {
    const resolve = resolverOf({
      localhost: ['127.0.0.1', '::1'],
      'dev.example.com': ['127.0.0.1'],
    });
    const dev = { allowInsecureLoopback: true };
    expect((await checkCallbackUrlResolved('http://localhost:3000/', dev, resolve)).ok).toBe(true);
    expect((await checkCallbackUrlResolved('https://dev.example.com/', dev, resolve)).ok).toBe(
      true,
    );
    expect(await checkCallbackUrlResolved('https://dev.example.com/', {}, resolve)).toEqual({
      ok: false,
      reason: 'resolves_to_blocked_address',
    });
  });
});

describe('callbackUrlRefusalMessage', () => {
  it('names the option that accepts a local receiver in development', () => {
    const check = checkCallbackUrl('http://127.0.0.1:3000/callbacks');
    expect(check.ok).toBe(false);
    const message = callbackUrlRefusalMessage(check.ok ? 'invalid_url' : check.reason);
    expect(message).toBe(
      'Refused callback URL (loopback_address): loopback receivers are accepted only with createGateway({ callbacks: { urlPolicy: { allowInsecureLoopback: true } } }), for local development.',
    );
    expect(
      checkCallbackUrl('http://127.0.0.1:3000/callbacks', { allowInsecureLoopback: true }).ok,
    ).toBe(true);
  });

  it('points private hosts at allowHosts, and keeps the bare code where no option helps', () => {
    expect(callbackUrlRefusalMessage('private_address')).toContain(
      'urlPolicy: { allowHosts: [...] }',
    );
    expect(callbackUrlRefusalMessage('insecure_scheme')).toMatch(
      /^Refused callback URL \(insecure_scheme\): callback URLs need https/,
    );
    expect(callbackUrlRefusalMessage('credentials_in_url')).toBe(
      'Refused callback URL (credentials_in_url).',
    );
  });
});
