'use strict';
// skewtest's driver kit for Node.js: the plumbing of the driver protocol (version 1) for
// drivers written in JavaScript, as github.com/skewtest/skewtest/driverkit is for Go. It
// writes hello, ready, results and observations as JSON lines on stdout, reads actions on
// stdin, dispatches them to the driver's async handlers, and answers stop and decode
// itself. It needs nothing but Node.js (no npm package), so a product can vendor it.
//
//   const kit = require('./driverkit');
//   const env = kit.fromEnv();
//   const d = kit.newDriver({role: env.role, kind: env.kind, product: 'shop', version: shop.version});
//   d.handle('order', async (args) => client.order(args.item)); // the product's real code
//   d.main(); // hello, ready, actions until stop or the end of stdin, then exit 0
//
// Ordinary actions run one at a time, in the order they arrive, each answered with one
// result; decode runs beside them (it is pure). A handler's thrown error or rejected
// promise is a failed result, never a crash. Observations may be written at any time.
//
// See docs/driver-protocol.md and docs/driver-authors.md in the skewtest repository, and
// README.md beside this file. The types are in driverkit.d.ts.

const fs = require('node:fs');
const readline = require('node:readline');

/** The driver protocol version this kit speaks. */
const PROTOCOL = 1;

/** Roles a driver plays (fromEnv().role, hello's role). */
const HOST = 'host';
const CLIENT = 'client';

/** Result error codes: the code of a result that is not ok. */
const CODE_UNSUPPORTED_ACTION = 'unsupported-action';
const CODE_BAD_ARGS = 'bad-args';
const CODE_FAILED = 'failed';

/** The actions the kit answers itself. */
const STOP = 'stop';
const DECODE = 'decode';
// Lanes are not served: an action for a lane is answered bad-args, and open-lane and
// close-lane are unknown actions (skewtest starts a process per pairing instead).
const LANE_ACTIONS = ['open-lane', 'close-lane'];

/** The types of a described parameter (Param.type). */
const PARAM_TYPES = ['text', 'int', 'bool', 'enum', 'id', 'json'];

/** How long the functions registered with onClose may take, together, before main exits. */
const CLOSE_GRACE_MS = 2000;

/**
 * An action's failure with its result code. A handler's error that is not a DriverError
 * is answered with CODE_FAILED.
 */
class DriverError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = 'DriverError';
    this.code = code;
  }
}

/** A bad-args failure: the action's arguments are wrong. */
function badArgs(message) {
  return new DriverError(CODE_BAD_ARGS, message);
}

/** An unsupported-action failure, for an action a handler finds this build cannot do. */
function unsupported(message) {
  return new DriverError(CODE_UNSUPPORTED_ACTION, message);
}

/** A failed result whatever err is (a DriverError from a lower layer must not decide the code). */
function failed(err) {
  return new DriverError(CODE_FAILED, messageOf(err), {cause: err});
}

function messageOf(err) {
  if (err instanceof Error) {
    return err.message || err.name;
  }
  return String(err);
}

function codeOf(err) {
  if (err instanceof DriverError && [CODE_UNSUPPORTED_ACTION, CODE_BAD_ARGS, CODE_FAILED].includes(err.code)) {
    return err.code;
  }
  return CODE_FAILED;
}

// The process's protocol streams, made once (stdio).
let streams = null;

/**
 * Returns the driver's protocol streams and keeps everything else off stdout: from the
 * first call on, whatever the process writes through process.stdout (console.log,
 * console.info, a library's process.stdout.write) goes to stderr, the driver's log. Only
 * the returned output reaches skewtest. newDriver calls it; call it first thing yourself
 * when a library may print while it loads. Node cannot move file descriptor 1 (there is
 * no dup2), so a raw write to it (fs.writeSync(1, …)) or a child process that inherits
 * stdout still reaches the protocol: give children stdio ['pipe', 2, 2] or 'pipe'.
 *
 * @returns {{input: NodeJS.ReadableStream, output: {write(line: string): void}}}
 */
function stdio() {
  if (streams) {
    return streams;
  }
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout); // the real stdout, for the protocol alone
  const stderr = process.stderr;
  stdout.write = function writeToStderr(...args) {
    return stderr.write(...args);
  };
  stdout.on('error', (err) => {
    // skewtest has gone (EPIPE): nobody reads the protocol any more.
    stderr.write(`driverkit: write the protocol: ${err.message}\n`);
    process.exit(1);
  });
  streams = {input: process.stdin, output: {write}};
  return streams;
}

/**
 * What skewtest tells a driver through its environment (the SKEWTEST_* variables).
 *
 * @returns {{protocol: number, role: string, kind: string, hostURL: string, buildLabel: string, buildRevision: string}}
 */
function fromEnv(env = process.env) {
  const p = Number.parseInt(env.SKEWTEST_DRIVER_PROTOCOL || '', 10);
  return {
    protocol: Number.isInteger(p) ? p : 0,
    role: env.SKEWTEST_ROLE || '',
    kind: env.SKEWTEST_KIND || '',
    hostURL: env.SKEWTEST_HOST_URL || '',
    buildLabel: env.SKEWTEST_BUILD_LABEL || '',
    buildRevision: env.SKEWTEST_BUILD_REVISION || '',
  };
}

/** The transports a host serves on: the scheme of the URL it reports in ready. */
const TRANSPORTS = ['ws', 'wss', 'tcp', 'tls'];

/**
 * Listens on 127.0.0.1, port 0, with a server that has listen(port, host, callback) and
 * address() (net.Server, http.Server, tls.Server), and resolves to the base URL a host
 * reports in ready, ws://127.0.0.1:PORT (or wss://, tcp://, tls:// for a channel whose
 * skewtest.yaml says so), the port read back from the server. For wss and tls, make the
 * server with tlsFiles()'s cert and key.
 *
 * @returns {Promise<string>}
 */
function listen(server, transport = 'ws') {
  if (!TRANSPORTS.includes(transport)) {
    return Promise.reject(new Error(`transport ${JSON.stringify(transport)}: want ${TRANSPORTS.join(', ')}`));
  }
  return new Promise((resolve, reject) => {
    const onError = (err) => reject(new Error(`listen on 127.0.0.1:0: ${err.message}`, {cause: err}));
    server.once('error', onError);
    server.listen(0, '127.0.0.1', () => {
      server.removeListener('error', onError);
      resolve(`${transport}://127.0.0.1:${server.address().port}`);
    });
  });
}

/**
 * The files of the throwaway certificate authority skewtest hands every driver of a run with
 * a wss or tls host (SKEWTEST_TLS_CA, SKEWTEST_TLS_CERT, SKEWTEST_TLS_KEY), read: ca for a
 * client to trust (tls.connect's ca), cert and key for a host to serve (tls.createServer's).
 *
 * @returns {{ca: Buffer, cert: Buffer, key: Buffer}}
 */
function tlsFiles(env = process.env) {
  const names = {ca: 'SKEWTEST_TLS_CA', cert: 'SKEWTEST_TLS_CERT', key: 'SKEWTEST_TLS_KEY'};
  const out = {};
  for (const [k, name] of Object.entries(names)) {
    if (!env[name]) {
      throw new Error(`no TLS files from skewtest (${Object.values(names).join(', ')}): skewtest hands them over ` +
        'when the host\'s skewtest.yaml gives a channel the wss or tls transport');
    }
    out[k] = fs.readFileSync(env[name]);
  }
  return out;
}

/**
 * The global WebSocket class (the WHATWG API browsers have), or an error that says how to
 * get it: Node 20 has it only with --experimental-websocket in the driver's argv; Node 22
 * and later have it by default. See README.md for why the kit has no WebSocket of its own.
 *
 * @returns {typeof WebSocket}
 */
function webSocket() {
  if (typeof globalThis.WebSocket === 'function') {
    return globalThis.WebSocket;
  }
  throw new Error(`node ${process.version} has no global WebSocket: start it with --experimental-websocket ` +
    '(Node 20; Node 22 and later have it by default)');
}

/**
 * Says what is wrong with a parameter description, or '' when nothing is: the rules of
 * Go's driverkit.Param.Check, which skewtest applies to every hello.
 */
function checkParam(p) {
  if (p === null || typeof p !== 'object') {
    return 'a parameter is an object';
  }
  const {name, type} = p;
  if (typeof name !== 'string' || name === '') {
    return 'a parameter needs a name';
  }
  if (!PARAM_TYPES.includes(type)) {
    return `parameter ${name}: type ${JSON.stringify(type)} is not one of ${PARAM_TYPES.join(', ')}`;
  }
  for (const k of ['min', 'max']) {
    if (p[k] !== undefined && !Number.isInteger(p[k])) {
      return `parameter ${name}: ${k} is an integer`;
    }
  }
  const min = p.min || 0;
  const max = p.max || 0;
  if (type === 'enum' && !(Array.isArray(p.values) && p.values.length > 0)) {
    return `parameter ${name}: an enum needs values`;
  }
  if (max !== 0 && max < min) {
    return `parameter ${name}: max ${max} is below min ${min}`;
  }
  if (type === 'text' && min < 0) {
    return `parameter ${name}: a length is not negative`;
  }
  if (type === 'json' && !p.example) {
    return `parameter ${name}: a json parameter needs an example`;
  }
  for (const l of p.limits || []) {
    if (!Number.isInteger(l) || l < 1) {
      return `parameter ${name}: limit ${l}: a limit is a size of at least 1`;
    }
  }
  return '';
}

// paramLine is a description as hello writes it: the keys the protocol knows, empty ones
// left out (as Go's omitempty does).
function paramLine(p) {
  const out = {name: p.name, type: p.type};
  for (const k of ['min', 'max']) {
    if (p[k]) {
      out[k] = p[k];
    }
  }
  for (const k of ['limits', 'values']) {
    if (Array.isArray(p[k]) && p[k].length > 0) {
      out[k] = p[k].slice();
    }
  }
  for (const k of ['utf8', 'optional']) {
    if (p[k]) {
      out[k] = true;
    }
  }
  for (const k of ['feeds', 'example']) {
    if (p[k]) {
      out[k] = String(p[k]);
    }
  }
  return out;
}

/**
 * Speaks the driver protocol for one driver process. Register handlers (handle, describe,
 * decode) before run or main; observe and error may be called at any time.
 */
class Driver {
  /**
   * @param hello {role, kind, product, version}: what the driver says about itself.
   * @param io {input, output}: the protocol's streams; stdio() when left out.
   */
  constructor(hello, io) {
    const {input, output} = io || stdio();
    this.input = input;
    this.output = output;
    this.hello = {role: hello.role || '', kind: hello.kind || '', product: hello.product || '', version: hello.version || ''};
    this.handlers = new Map();
    this.params = new Map();
    this.decoder = null;
    this.closers = [];
    this.running = false;
    this.open = false; // hello is written: lines go out at once
    this.pending = []; // lines written before hello
    this.abort = new AbortController();
  }

  /**
   * Registers the handler of an action: async (args, ctx) => data. args is the action's
   * args ({} when absent); ctx.signal is aborted when the driver stops serving. The data it
   * resolves to is the result's (undefined: none); a thrown error or a rejected promise is
   * a failed result (badArgs: bad-args, unsupported: unsupported-action).
   */
  handle(action, handler) {
    this.mustNotRun(`handle(${JSON.stringify(action)})`);
    if (typeof action !== 'string' || action === '' || typeof handler !== 'function') {
      throw new Error('driverkit: handle needs an action name and a function');
    }
    if (action === STOP) {
      throw new Error('driverkit: stop is built in: close what the driver opened with onClose');
    }
    if (action === DECODE) {
      throw new Error('driverkit: register decode with decode()');
    }
    if (LANE_ACTIONS.includes(action)) {
      throw new Error(`driverkit: ${action}: this kit serves no lanes`);
    }
    if (this.handlers.has(action)) {
      throw new Error(`driverkit: action ${JSON.stringify(action)} registered twice`);
    }
    this.handlers.set(action, handler);
  }

  /**
   * Describes the parameters of a registered action in hello (optional), so that skewtest
   * explore can draw journeys from the vocabulary (docs/explore.md). A description skewtest
   * would refuse throws.
   */
  describe(action, ...params) {
    this.mustNotRun(`describe(${JSON.stringify(action)})`);
    for (const p of params) {
      const bad = checkParam(p);
      if (bad) {
        throw new Error(`driverkit: describe(${JSON.stringify(action)}): ${bad}`);
      }
    }
    this.params.set(action, params.map(paramLine));
  }

  /**
   * Registers the decode action: fn({id, dir, path, binary, data: Buffer}) names one frame
   * the way this build's receiving side reads it, {type, opcode?, fields?}, or refuses it,
   * {refused: true, reason}. It must be pure (no connection, no state) and use the
   * product's real decoder. A frame it throws on is refused with the error as the reason.
   * Without it, hello lists no decode and skewtest never asks.
   */
  decode(fn) {
    this.mustNotRun('decode');
    if (typeof fn !== 'function') {
      throw new Error('driverkit: decode needs a function');
    }
    if (this.decoder) {
      throw new Error('driverkit: decode registered twice');
    }
    this.decoder = fn;
  }

  /**
   * Registers what closes the driver's instance (a server, a connection): main runs these
   * functions, newest first, after stop or the end of stdin, before it exits.
   */
  onClose(fn) {
    if (typeof fn !== 'function') {
      throw new Error('driverkit: onClose needs a function');
    }
    this.closers.push(fn);
  }

  /** Writes an observation: what the product did, named what, with data (undefined is {}). */
  observe(what, data) {
    this.writeLine({type: 'observe', what, data: data === undefined || data === null ? {} : data}, () =>
      ({type: 'observe', what: 'error', data: {message: `observation ${what} is not JSON`}}));
  }

  /** Writes an "error" observation, {message}: an internal error no action's result carries. */
  error(message) {
    this.observe('error', {message: String(message)});
  }

  /**
   * Speaks the protocol until the driver should exit: writes hello, calls start (a host
   * starts listening and resolves to its ws:// base URL, a client to ''; undefined starts
   * nothing), writes ready, then answers actions until stop (whose result is written last,
   * after every earlier action's) or the end of stdin. It resolves then; the caller closes
   * what it opened and exits (main does both). An error from start is written as an error
   * observation and rejects, without ready.
   *
   * @param start {(signal: AbortSignal) => Promise<string|undefined>|string|undefined}
   */
  async run(start) {
    if (this.running) {
      throw new Error('driverkit: run called twice');
    }
    const hello = {type: 'hello', protocol: PROTOCOL, role: this.hello.role};
    if (this.hello.kind) {
      hello.kind = this.hello.kind;
    }
    hello.build = {product: this.hello.product, version: this.hello.version};
    hello.actions = this.actions();
    const params = this.described();
    if (params) {
      hello.params = params;
    }
    this.running = true;
    this.writeHello(hello);
    let url = '';
    if (start) {
      try {
        url = (await start(this.abort.signal)) || '';
      } catch (err) {
        this.error(messageOf(err));
        throw new Error(`start: ${messageOf(err)}`, {cause: err});
      }
    }
    this.writeLine(url ? {type: 'ready', url} : {type: 'ready'});
    try {
      await this.serve();
    } finally {
      this.abort.abort();
    }
  }

  /**
   * The usual entry point: installs reporting of errors no handler caught (an error
   * observation each, and the stack in the log; the driver keeps serving), runs, runs the
   * onClose functions, and exits: 0 after stop or the end of stdin, 1 when start failed.
   */
  main(start) {
    process.on('uncaughtException', (err) => this.uncaught('uncaught exception', err));
    process.on('unhandledRejection', (err) => this.uncaught('unhandled rejection', err));
    this.run(start).then(
      () => this.closeAndExit(0),
      (err) => {
        process.stderr.write(`driverkit: ${err.stack || err}\n`);
        this.closeAndExit(1);
      });
  }

  uncaught(what, err) {
    process.stderr.write(`driverkit: ${what}: ${(err && err.stack) || err}\n`);
    this.error(`${what}: ${messageOf(err)}`);
  }

  async closeAndExit(code) {
    const closing = (async () => {
      for (const fn of this.closers.slice().reverse()) {
        try {
          await fn();
        } catch (err) {
          process.stderr.write(`driverkit: close: ${(err && err.stack) || err}\n`);
        }
      }
    })();
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => {
        process.stderr.write(`driverkit: closing took more than ${CLOSE_GRACE_MS} ms; exiting anyway\n`);
        resolve();
      }, CLOSE_GRACE_MS);
    });
    await Promise.race([closing, late]);
    clearTimeout(timer);
    process.exit(code);
  }

  // --- internals ---

  mustNotRun(what) {
    if (this.running) {
      throw new Error(`driverkit: ${what} after run`);
    }
  }

  // actions lists what hello announces: the handlers, stop, and decode if registered.
  actions() {
    const names = [STOP, ...this.handlers.keys()];
    if (this.decoder) {
      names.push(DECODE);
    }
    return names.sort();
  }

  // described is hello's params: undefined when nothing is described.
  described() {
    if (this.params.size === 0) {
      return undefined;
    }
    const out = {};
    for (const [action, ps] of this.params) {
      if (!this.handlers.has(action)) {
        throw new Error(`driverkit: describe(${JSON.stringify(action)}): no such action is registered`);
      }
      out[action] = ps;
    }
    return out;
  }

  writeHello(hello) {
    this.output.write(JSON.stringify(hello) + '\n');
    this.open = true;
    const pending = this.pending;
    this.pending = [];
    for (const line of pending) {
      this.output.write(line);
    }
  }

  // writeLine writes one message as one line; a message that is not JSON (a cycle, a
  // BigInt) is replaced by instead(), when given.
  writeLine(msg, instead) {
    let line;
    try {
      line = JSON.stringify(msg) + '\n';
    } catch (err) {
      if (!instead) {
        throw err;
      }
      process.stderr.write(`driverkit: ${err.message}\n`);
      line = JSON.stringify(instead()) + '\n';
    }
    if (this.open) {
      this.output.write(line);
    } else {
      this.pending.push(line);
    }
  }

  result(id, data, err) {
    if (err === undefined) {
      const msg = {type: 'result', id, ok: true};
      if (data !== undefined && data !== null) {
        msg.data = data;
      }
      try {
        this.writeLine(msg);
        return;
      } catch (e) {
        err = failed(new Error(`the result is not JSON: ${e.message}`));
      }
    }
    this.writeLine({type: 'result', id, ok: false, error: {code: codeOf(err), message: messageOf(err)}});
  }

  // serve answers actions until stop or the end of the input. Ordinary actions are chained
  // (one at a time, in order); decode actions run at once.
  serve() {
    return new Promise((resolve) => {
      const rl = readline.createInterface({input: this.input, crlfDelay: Infinity, terminal: false});
      let tail = Promise.resolve();
      const decodes = new Set();
      let done = false;
      const finish = (then) => {
        done = true;
        rl.close();
        tail = tail.then(() => Promise.allSettled([...decodes])).then(then).then(resolve);
      };
      rl.on('line', (line) => {
        if (done || line.trim() === '') {
          return;
        }
        let req;
        try {
          req = JSON.parse(line);
        } catch (err) {
          this.error(`action line ${JSON.stringify(line.slice(0, 200))}: ${err.message}`);
          return;
        }
        if (req === null || typeof req !== 'object' || Array.isArray(req)) {
          this.error(`action line ${JSON.stringify(line.slice(0, 200))}: not a JSON object`);
          return;
        }
        if (req.action === STOP) {
          finish(() => this.result(req.id));
          return;
        }
        if (req.lane) {
          this.result(req.id, undefined, badArgs(`${req.action}: lane ${req.lane} is not open (this driver serves no lanes)`));
          return;
        }
        if (req.action === DECODE && this.decoder) {
          const p = this.answer(req, (args) => this.decodeFrames(args));
          decodes.add(p);
          p.finally(() => decodes.delete(p));
          return;
        }
        const handler = this.handlers.get(req.action);
        tail = tail.then(() => this.answer(req, handler));
      });
      rl.on('close', () => {
        if (!done) {
          finish(() => {});
        }
      });
    });
  }

  async answer(req, handler) {
    if (!handler) {
      const where = this.hello.version || 'this build';
      this.result(req.id, undefined, unsupported(`no action ${JSON.stringify(req.action)} in ${where}`));
      return;
    }
    const args = req.args === undefined || req.args === null ? {} : req.args;
    let data;
    try {
      data = await handler(args, {signal: this.abort.signal, action: req.action});
    } catch (err) {
      if (!(err instanceof DriverError)) {
        process.stderr.write(`driverkit: action ${req.action} (id ${req.id}) failed: ${(err && err.stack) || err}\n`);
      }
      this.result(req.id, undefined, err === undefined ? failed(new Error('rejected without a reason')) : err);
      return;
    }
    this.result(req.id, data);
  }

  // decodeFrames answers {frames: [Frame…]} with {frames: [decoded…]}, in order.
  async decodeFrames(args) {
    if (!Array.isArray(args.frames)) {
      throw badArgs('decode needs frames');
    }
    const out = [];
    for (const f of args.frames) {
      if (f === null || typeof f !== 'object') {
        throw badArgs('decode: a frame is an object');
      }
      out.push(await this.decodeOne(f));
    }
    return {frames: out};
  }

  async decodeOne(f) {
    const frame = {id: f.id, dir: f.dir || '', path: f.path || '', binary: Boolean(f.binary),
      data: Buffer.from(typeof f.data === 'string' ? f.data : '', 'base64')};
    let r;
    try {
      r = (await this.decoder(frame)) || {};
    } catch (err) {
      process.stderr.write(`driverkit: decode of frame ${f.id} threw: ${(err && err.stack) || err}\n`);
      return {id: f.id, refused: true, reason: `decoder threw: ${messageOf(err)}`};
    }
    const out = {id: f.id};
    if (r.type) {
      out.type = String(r.type);
    }
    const opcode = Number.isInteger(r.opcode) ? r.opcode : 0;
    if (!r.refused || opcode !== 0) {
      out.opcode = opcode;
    }
    if (r.fields !== undefined && r.fields !== null) {
      out.fields = r.fields;
    }
    if (r.refused) {
      out.refused = true;
      if (r.reason) {
        out.reason = String(r.reason);
      }
    }
    return out;
  }
}

/** A driver for one process: newDriver({role, kind, product, version}). */
function newDriver(hello, io) {
  return new Driver(hello, io);
}

module.exports = {
  PROTOCOL,
  HOST,
  CLIENT,
  CODE_UNSUPPORTED_ACTION,
  CODE_BAD_ARGS,
  CODE_FAILED,
  PARAM_TYPES,
  Driver,
  DriverError,
  badArgs,
  unsupported,
  failed,
  checkParam,
  fromEnv,
  listen,
  newDriver,
  stdio,
  tlsFiles,
  TRANSPORTS,
  webSocket,
};
