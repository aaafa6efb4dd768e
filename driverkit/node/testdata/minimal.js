'use strict';
// The smallest useful driver built on the Node.js kit, the twin of the Go kit's
// driverkit/testdata/minimal: the one in docs/driver-authors.md, plus two lines (marked)
// that write to stdout behind the kit's back, to show that stray output cannot reach the
// protocol. Its "product" is a counter; as a host it serves HTTP on the port it reports.
//
//   node minimal.js        (role and kind from SKEWTEST_ROLE and SKEWTEST_KIND)

const http = require('node:http');
const kit = require('../driverkit');

// counter stands in for the product's real code.
let total = 0;

const env = kit.fromEnv();
const d = kit.newDriver({role: env.role, kind: env.kind, product: 'counter', version: 'v1.0.0'});
d.handle('add', async (args) => {
  if (!Number.isInteger(args.n)) {
    throw kit.badArgs('add needs n, an integer');
  }
  total += args.n;
  d.observe('total', {total});
  return {total};
});
d.describe('add', {name: 'n', type: 'int', min: -100, max: 100});
d.decode((f) => {
  let m;
  try {
    m = f.binary ? null : JSON.parse(f.data.toString('utf8'));
  } catch {
    m = null;
  }
  if (m === null || typeof m !== 'object' || typeof m.type !== 'string' || m.type === '') {
    return {refused: true, reason: 'not a JSON frame with a type'};
  }
  return {type: m.type, fields: m};
});

d.main(async () => {
  console.log('stray output: goes to stderr, not to skewtest'); // (not in the docs)
  process.stdout.write('so does a write to process.stdout\n'); // (not in the docs)
  if (env.role !== kit.HOST) {
    return '';
  }
  const server = http.createServer((req, res) => res.writeHead(404).end());
  d.onClose(() => new Promise((resolve) => server.close(resolve)));
  return kit.listen(server);
});
