import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isPublicAddress } from '../../src/security/address-policy.js';

const refused: Record<string, string[]> = {
  'private IPv4': ['10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.254', '192.168.1.1'],
  'unique-local IPv6': ['fc00::1', 'fd12:3456:789a::1'],
  loopback: ['127.0.0.1', '127.1.2.3', '::1'],
  'link-local and cloud metadata': ['169.254.169.254', '169.254.0.1', 'fe80::1', 'fe80::1%eth0'],
  'carrier-grade NAT': ['100.64.0.1', '100.127.255.254'],
  benchmarking: ['198.18.0.1', '198.19.255.255', '2001:2::1'],
  reserved: ['240.0.0.1', '250.1.2.3', '255.255.255.255'],
  multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1', 'ff0e::1'],
  documentation: ['192.0.2.1', '198.51.100.7', '203.0.113.9', '2001:db8::1', '3fff::1'],
  'this network and unspecified': ['0.0.0.0', '0.1.2.3', '::'],
  'IETF protocol assignments': ['192.0.0.1', '192.0.0.170'],
  'IPv4-mapped IPv6 of a private address': ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254'],
  'NAT64 of a private address': ['64:ff9b::7f00:1', '64:ff9b::a00:1'],
  '6to4 of a private address': ['2002:7f00:1::1', '2002:c0a8:101::1'],
  'Teredo with a private client': ['2001:0:4136:e378:8000:63bf:80ff:fffe'],
  'IPv6 outside global unicast': ['::7f00:1', '100::1', '64:ff9b:1::1'],
  'text that is not an IP': ['localhost', 'example.com', '2130706433', '0x7f.0.0.1', '0177.0.0.1', '', '1.2.3'],
};

for (const [kind, ips] of Object.entries(refused)) {
  test(`${kind} is refused`, () => {
    for (const ip of ips) assert.is(isPublicAddress(ip), false, ip);
  });
}

test('ordinary public addresses are allowed', () => {
  for (const ip of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '198.20.0.1', '2001:4860:4860::8888', '2606:4700::1111']) {
    assert.is(isPublicAddress(ip), true, ip);
  }
});

test('IPv6 forms that embed a public IPv4 are judged by that IPv4', () => {
  assert.is(isPublicAddress('::ffff:8.8.8.8'), true);
  assert.is(isPublicAddress('64:ff9b::808:808'), true);
  assert.is(isPublicAddress('2002:808:808::1'), true);
});

test('a bracketed IPv6 literal is judged like the bare one', () => {
  assert.is(isPublicAddress('[::1]'), false);
  assert.is(isPublicAddress('[2001:4860:4860::8888]'), true);
});

test.run();
