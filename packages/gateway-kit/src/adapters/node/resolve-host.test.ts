import { describe, expect, it } from 'vitest';
import { checkCallbackUrlResolved } from '../../callbacks/callback-url-guard.ts';
import { classifyIp, parseIpLiteral } from '../../callbacks/ip-ranges.ts';
import { resolveHostWithNodeDns } from './resolve-host.ts';

describe('resolveHostWithNodeDns', () => {
  it('resolves localhost through the system resolver to loopback addresses', async () => {
    const addresses = await resolveHostWithNodeDns('localhost');
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) {
      expect(classifyIp(parseIpLiteral(address)!)).toBe('loopback_address');
    }
  });

  it('returns IP literals as they are, with or without brackets', async () => {
    expect(await resolveHostWithNodeDns('127.0.0.1')).toEqual(['127.0.0.1']);
    expect(await resolveHostWithNodeDns('[::1]')).toEqual(['::1']);
  });

  it('rejects for a name that does not exist', async () => {
    await expect(resolveHostWithNodeDns('no-such-host.invalid')).rejects.toThrow();
  });

  it('plugs into checkCallbackUrlResolved', async () => {
    const dev = { allowInsecureLoopback: true };
    expect(
      (await checkCallbackUrlResolved('http://localhost:3000/', dev, resolveHostWithNodeDns)).ok,
    ).toBe(true);
    expect(
      await checkCallbackUrlResolved('https://no-such-host.invalid/', {}, resolveHostWithNodeDns),
    ).toEqual({ ok: false, reason: 'dns_lookup_failed' });
  });
});
