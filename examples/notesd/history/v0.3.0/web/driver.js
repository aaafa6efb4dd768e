'use strict';
// The web client's driver: runs this build's web client (notes.js) under skewtest's driver
// protocol with skewtest's Node.js driver kit (driverkit.js, which the build copies here
// from third_party/skewtest/driverkit/node):
//
//   node --experimental-websocket web/driver.js client web
//
// It reads actions as JSON lines on stdin and writes hello, ready, results and
// observations as JSON lines on stdout; its log goes to stderr. It exits 0 after a stop
// action or at the end of stdin, closing its connection first. The actions and
// observations are the Go cli client's (cmd/notesd-driver/client.go), so the journeys
// drive both alike.
//
// NOTESD_FEATURES='{"putSendsContent":true}' lays fields of the release's features over
// this build's release.json, to make negative controls (see the subject's README).

const fs = require('node:fs');
const path = require('node:path');

const kit = require('./driverkit');
const release = require('./release');
const {Client, RPCError, RefusedError, readFromHost, PATH, KIND} = require('./notes');

const PRODUCT = 'notesd';
const FEATURES_ENV = 'NOTESD_FEATURES';

function usage(message) {
  process.stderr.write(`web driver: ${message}\nusage: node --experimental-websocket driver.js client ${KIND}\n`);
  process.exit(2);
}

// replied makes an action's result: the host's error reply is a result too (the call was
// made; the rpc-error observation says how the host answered), anything else a failure.
async function replied(call) {
  try {
    return await call();
  } catch (err) {
    if (err instanceof RPCError) {
      return {error: {code: err.code, message: err.message}};
    }
    throw err;
  }
}

// frameDecoder names a frame the way this build's web client reads it, with the client's
// own read path (readFromHost, which the running client reads every message with), and
// acts on nothing.
function frameDecoder(features) {
  return (f) => {
    if (f.dir !== 'H>C') {
      return {refused: true, reason: `${KIND} client does not receive ${f.dir} frames`};
    }
    if (f.path.split('?')[0] !== PATH) {
      return {refused: true, reason: `no decoder for path ${f.path}`};
    }
    let read;
    try {
      read = readFromHost(features, f.binary, f.data);
    } catch (err) {
      return {refused: true, reason: err.message};
    }
    const parts = read.messages.map((m) => {
      const fields = {};
      if (m.id !== undefined) {
        fields.id = m.id;
      }
      let type = m.method || '';
      if (m.method) {
        if (m.params !== undefined) {
          fields.params = m.params;
        }
      } else if (m.error) {
        type = 'error';
        fields.error = m.error;
      } else if ('result' in m) {
        type = 'result';
        fields.result = m.result;
      }
      return {type, fields, err: m.err};
    });
    return decoded(parts, read.batch);
  };
}

// decoded is the answer for a frame's messages, as the Go driver gives it: one message by
// its type with its fields; a batch by its messages' types (one name when they share it)
// with an array of their fields, each naming its type. A refused message refuses the frame.
function decoded(parts, batch) {
  if (!batch) {
    const p = parts[0];
    if (p.err) {
      return {type: p.type, refused: true, reason: p.err.message};
    }
    return {type: p.type, fields: Object.keys(p.fields).length > 0 ? p.fields : undefined};
  }
  const types = parts.map((p) => p.type);
  const type = types.every((t) => t === types[0]) ? types[0] : types.join(',');
  for (const [i, p] of parts.entries()) {
    if (p.err) {
      return {type, refused: true,
        reason: `message ${i + 1} of ${parts.length} in the batch (${p.type || 'unnamed'}): ${p.err.message}`};
    }
  }
  return {type, fields: parts.map((p) => (p.type ? {...p.fields, type: p.type} : p.fields))};
}

function main() {
  const args = process.argv.slice(2);
  if (args.length !== 2 || args[0] !== kit.CLIENT || args[1] !== KIND) {
    usage(`bad arguments ${JSON.stringify(args)}`);
  }
  let features;
  try {
    features = release.parse(fs.readFileSync(path.join(__dirname, 'release.json'), 'utf8'));
    features = release.override(features, process.env[FEATURES_ENV] || '');
  } catch (err) {
    usage(`${FEATURES_ENV}: ${err.message}`);
  }
  if (process.env[FEATURES_ENV]) {
    console.error(`web driver: ${FEATURES_ENV}=${process.env[FEATURES_ENV]}: release ${JSON.stringify(features)}`);
  }
  const env = kit.fromEnv();
  const d = kit.newDriver({role: kit.CLIENT, kind: KIND, product: PRODUCT, version: features.version || ''});
  let client = null;
  const product = () => {
    if (!client) {
      throw new Error('the web client is not started');
    }
    return client;
  };

  // open and reconnect connect and open a session. A refusal (peers outside each other's
  // protocol window) is still ok, with accepted:false; the observations say who refused.
  const connect = async () => {
    try {
      const res = await product().connect();
      return {accepted: true, session: res.session, capabilities: res.capabilities};
    } catch (err) {
      if (err instanceof RefusedError) {
        return {accepted: false, by: err.by, reason: err.reason};
      }
      throw err;
    }
  };
  d.handle('open', connect);
  d.handle('reconnect', connect);
  d.handle('close', () => {
    product().close();
  });
  const text = (v) => (v === undefined || v === null ? '' : String(v)); // absent is "", as in Go
  d.handle('put', (a) => replied(() => product().put(text(a.id), text(a.content), a.tags)));
  d.handle('import', (a) => {
    if (!Array.isArray(a.notes) || a.notes.length === 0) {
      throw kit.badArgs('import needs notes');
    }
    const notes = a.notes.map((n) => ({id: text(n.id), text: text(n.content), tags: n.tags}));
    return replied(async () => ({notes: await product().importNotes(notes)}));
  });
  d.handle('get', (a) => replied(() => product().get(text(a.id))));
  d.handle('list', () => replied(() => product().list()));
  if (features.search) {
    d.handle('search', (a) => replied(() => product().search(text(a.query))));
  }
  // What skewtest explore draws from, as the Go client describes it.
  const id = {name: 'id', type: 'enum', values: ['n1', 'n2', 'n3']};
  d.describe('put', id, {name: 'content', type: 'text', utf8: true, max: 1 << 16, feeds: 'notes'});
  d.describe('get', id);
  d.describe('list');
  d.decode(frameDecoder(features));
  d.onClose(() => client && client.close());

  d.main(() => {
    // The WebSocket the web client is written for: the global one (see the kit's README).
    client = new Client({features, base: env.hostURL, observe: (what, data) => d.observe(what, data),
      WebSocket: kit.webSocket(), log: (line) => console.error(`web client: ${line}`)});
    return '';
  });
}

main();
