// Fixtures: test/security/fixtures/ca.pem signs server.pem (CN and SAN secure.test). To regenerate:
//   openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 36500 -subj "/CN=ServiceChat Test CA" \
//     -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign"
//   openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=secure.test"
//   openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 36500 \
//     -extfile <(printf "subjectAltName=DNS:secure.test\nextendedKeyUsage=serverAuth")
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { clientPool, outboundFailure, tableLookup } from './loopback-server.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const ca = fixture('ca.pem');
let server: https.Server;
let port = 0;
const servernames: (string | false | null)[] = [];
const { lookup } = tableLookup({ 'secure.test': '127.0.0.1', 'other.test': '127.0.0.1' });
const pool = clientPool({ allowPrivateNetwork: true, lookup });
const client = (tlsCa?: Buffer) => pool.client({ tlsCa });

test.before(async () => {
  server = https.createServer({ cert: fixture('server.pem'), key: fixture('server.key') }, (_req, res) => res.end('secret page'));
  server.on('secureConnection', (s: TLSSocket) => servernames.push(s.servername));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
test.after(async () => {
  await pool.closeAll();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test('https to a pinned address still sends the hostname as SNI and verifies the certificate for it', async () => {
  const res = await client(ca).request(`https://secure.test:${port}/`);
  assert.is(res.body.toString(), 'secret page');
  assert.is(servernames.at(-1), 'secure.test');
});

test('a certificate for another name is refused even though the address is the same', async () => {
  const err = await outboundFailure(client(ca).request(`https://other.test:${port}/`));
  assert.is(err.code, 'connect_failed');
  assert.match(err.message, /certificate not accepted \(ERR_TLS_CERT_ALTNAME_INVALID\)/);
});

test('a certificate from an untrusted CA is refused', async () => {
  const err = await outboundFailure(client().request(`https://secure.test:${port}/`));
  assert.is(err.code, 'connect_failed');
  assert.match(err.message, /certificate not accepted/);
  const viaFetch = await outboundFailure(client().fetch(`https://secure.test:${port}/`));
  assert.is(viaFetch.code, 'connect_failed');
});

test('an https URL with an IP literal is checked against the certificate too', async () => {
  const err = await outboundFailure(client(ca).request(`https://127.0.0.1:${port}/`));
  assert.is(err.code, 'connect_failed');
});

test.run();
