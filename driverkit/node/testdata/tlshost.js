'use strict';
// A host that serves a TLS byte stream with the certificate skewtest hands over (kit.tlsFiles),
// and reports a tls:// URL (kit.listen): what a product on the tls transport does.
//
//   node tlshost.js

const tls = require('node:tls');
const kit = require('../driverkit');

const env = kit.fromEnv();
const d = kit.newDriver({role: env.role, kind: env.kind, product: 'echo', version: 'v1.0.0'});
d.main(async () => {
  const {cert, key} = kit.tlsFiles();
  const server = tls.createServer({cert, key}, (sock) => sock.pipe(sock));
  d.onClose(() => new Promise((resolve) => server.close(resolve)));
  return kit.listen(server, 'tls');
});
