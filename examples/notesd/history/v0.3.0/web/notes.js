'use strict';
// notesd's web client: a notes app's connection to a notesd host, written for the
// WebSocket API browsers have (the WHATWG WebSocket, which Node also has). It speaks
// JSON-RPC 2.0 over one WebSocket at HOST/rpc, one JSON text message per request, reply or
// notification, and a batch (a JSON array) as one message. It opens a session
// (session.open) declaring no capability, writes, reads, lists, imports many notes in one
// batch, and searches where its release has search (falling back to notes.list where the
// host does not serve notes.search). It first shipped in notesd v0.3.0.
//
// Every behaviour that differs between releases is decided by the release's features
// (release.js); what the client does is reported to an observer, observe(what, data),
// with the names and data of the Go clients (client/client.go).

const {window} = require('./release');

const PATH = '/rpc';
const KIND = 'web';

// JSON-RPC methods and codes (api/api.go).
const OPEN = 'session.open';
const PUT = 'notes.put';
const GET = 'notes.get';
const LIST = 'notes.list';
const SEARCH = 'notes.search';
const NOTICE = 'notes.notice';
const ACK = 'notes.ack';
const KEEPALIVE = 'notes.keepalive';
const CAP_KEEPALIVE = 'keepalive';
const CODE_INCOMPATIBLE = -32010;
const METHOD_NOT_FOUND = -32601;

/** The host answered a call with an error object. */
class RPCError extends Error {
  constructor(method, error) {
    super(typeof error.message === 'string' ? error.message : 'error reply');
    this.name = 'RPCError';
    this.method = method;
    this.code = error.code;
    this.data = error.data;
  }
}

/** The peers are outside each other's protocol window; by is who refused. */
class RefusedError extends Error {
  constructor(by, reason) {
    super(`refused by the ${by}: ${reason}`);
    this.name = 'RefusedError';
    this.by = by;
    this.reason = reason;
  }
}

/** A host's message, or one message of a batch, that the client refuses or drops. */
class RefusalError extends Error {
  constructor(reason, method) {
    super(reason);
    this.name = 'RefusalError';
    this.method = method || '';
  }
}

// readFromHost reads one WebSocket message from the host as this client does, as far as
// the message alone decides: {messages, batch}, each message a notification
// {method, params} for the client's handler (readNotification), or a reply
// {id, result} / {id, error} for the pending call with that id, or {err} when the client
// drops that message. A message refused whole throws a RefusalError. The running client
// (onMessage) and the driver's decode both read with it.
function readFromHost(features, binary, data) {
  if (binary) {
    throw new RefusalError('binary WebSocket message on a JSON-RPC channel');
  }
  const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new RefusalError(`invalid JSON: ${err.message}`);
  }
  const batch = Array.isArray(doc);
  const items = batch ? doc : [doc];
  if (items.length === 0) {
    throw new RefusalError('an empty batch: the client has nothing to deliver');
  }
  return {messages: items.map((m) => readMessage(features, m)), batch};
}

// readMessage is one JSON-RPC message as the client delivers it.
function readMessage(features, m) {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) {
    return {err: new RefusalError('a message is a JSON object')};
  }
  const out = {};
  if (m.id !== undefined && m.id !== null) {
    out.id = m.id;
  }
  if (typeof m.method === 'string') {
    out.method = m.method;
  }
  if (m.jsonrpc !== '2.0') {
    out.err = new RefusalError(`invalid version marker ${JSON.stringify(m.jsonrpc)}`, out.method);
    return out;
  }
  if (out.method) {
    if (out.id !== undefined) {
      out.err = new RefusalError(`no handler for callback ${out.method}: discarded`, out.method);
      return out;
    }
    try {
      out.params = readNotification(features, out.method, m.params);
    } catch (err) {
      out.err = err;
    }
    return out;
  }
  if (out.id === undefined) {
    out.err = new RefusalError('a reply without an id');
    return out;
  }
  if (m.error !== undefined) {
    const e = m.error;
    if (e === null || typeof e !== 'object' || !Number.isInteger(e.code)) {
      out.err = new RefusalError('an error reply without an integer code');
      return out;
    }
    out.error = {code: e.code, message: typeof e.message === 'string' ? e.message : ''};
    if (e.data !== undefined) {
      out.error.data = e.data;
    }
    return out;
  }
  if (!('result' in m)) {
    out.err = new RefusalError('a reply with neither result nor error');
    return out;
  }
  out.result = m.result;
  return out;
}

// readNotification reads a notification as the web client handles it: notes.notice (every
// release takes it; only an acknowledgement depends on it) and notes.keepalive where the
// release knows it (keepaliveKnown; its params, if any, ignored). The web client declares
// no push, so any other notification, notes.changed included, has no handler and is
// dropped.
function readNotification(features, method, params) {
  if (method === NOTICE) {
    const seq = params && Number.isInteger(params.seq) ? params.seq : 0;
    return {seq};
  }
  if (method === KEEPALIVE && features.keepaliveKnown) {
    return undefined; // no params to hand on, as the Go clients' nil
  }
  throw new RefusalError(`no handler for notification ${method}`, method);
}

// noteData is a note as the client reports it (client/notes.go noteData).
function noteData(n) {
  const data = {id: n.id, tags: Array.isArray(n.tags) ? n.tags : []};
  if (typeof n.text === 'string') {
    data.text = n.text;
  }
  if (Number.isInteger(n.rev)) {
    data.rev = n.rev;
  }
  return data;
}

/** One web client of a notesd host. */
class Client {
  /**
   * @param opts {features, base, observe, WebSocket, log}: the release's features, the
   *   host's base URL (ws://127.0.0.1:PORT), where observations go, the WebSocket class,
   *   and a log function.
   */
  constructor(opts) {
    this.features = opts.features;
    this.base = String(opts.base || '').replace(/\/+$/, '');
    this.observe = opts.observe || (() => {});
    this.WebSocket = opts.WebSocket;
    this.log = opts.log || (() => {});
    this.conn = null; // the live connection, null while offline
    this.nextID = 1;
  }

  /**
   * The capabilities the web client declares: no push (it does not sync); keepalive with
   * the keepalive switch.
   */
  declares() {
    return this.features.keepalive ? [CAP_KEEPALIVE] : [];
  }

  /**
   * Connects, opens a session and resolves to its result. A host outside this release's
   * protocol window (or one that refuses it) rejects with a RefusedError, the connection
   * closed.
   */
  async connect() {
    this.close();
    const url = this.base + PATH;
    const conn = await this.dial(url);
    this.conn = conn;
    this.observe('connected', {path: PATH});
    try {
      return await this.open(conn);
    } catch (err) {
      this.close();
      throw err;
    }
  }

  dial(url) {
    return new Promise((resolve, reject) => {
      let ws;
      try {
        ws = new this.WebSocket(url);
      } catch (err) {
        reject(new Error(`dial ${url}: ${err.message}`));
        return;
      }
      ws.binaryType = 'arraybuffer';
      const conn = {ws, pending: new Map(), closing: false, closed: false};
      let opened = false;
      ws.onopen = () => {
        opened = true;
        resolve(conn);
      };
      ws.onerror = (ev) => {
        if (!opened) {
          reject(new Error(`dial ${url}: ${(ev && ev.message) || 'the connection failed'}`));
        }
      };
      ws.onmessage = (ev) => this.onMessage(conn, ev.data);
      ws.onclose = (ev) => {
        if (!opened) {
          reject(new Error(`dial ${url}: closed before it opened (code ${ev.code})`));
          return;
        }
        this.lost(conn, ev);
      };
    });
  }

  async open(conn) {
    const [version, minimum] = window(this.features);
    const declared = this.declares();
    const local = {protocol: version, minCompatible: minimum};
    let res;
    try {
      res = await this.call(OPEN, {client: KIND, version: this.features.version || '', protocol: version,
        minCompatible: minimum, capabilities: declared}, conn);
    } catch (err) {
      if (err instanceof RPCError && err.code === CODE_INCOMPATIBLE) {
        const peer = err.data && typeof err.data === 'object' ? err.data : {};
        this.observe('refused-peer', {by: 'host', reason: err.message, local, peer});
        throw new RefusedError('host', err.message);
      }
      this.rpcError(OPEN, err);
      throw err;
    }
    res = res || {};
    const peer = {protocol: Math.max(res.protocol || 0, 1), minCompatible: Math.max(res.minCompatible || 0, 1)};
    if (peer.protocol < minimum || version < peer.minCompatible) {
      const reason = `host protocol ${peer.protocol} (minimum ${peer.minCompatible}) is outside client protocol ${version} (minimum ${minimum})`;
      this.observe('refused-peer', {by: 'client', reason, local, peer});
      throw new RefusedError('client', reason);
    }
    const capabilities = Array.isArray(res.capabilities) ? res.capabilities : [];
    this.observe('opened', {session: res.session, server: res.server, protocol: res.protocol,
      minCompatible: res.minCompatible, declared, capabilities, cursor: res.cursor});
    return {session: res.session, capabilities};
  }

  /** Closes the connection, if any, on purpose (no transport-closed is reported). */
  close() {
    const conn = this.conn;
    this.conn = null;
    if (!conn || conn.closed) {
      return;
    }
    conn.closing = true;
    this.fail(conn, new Error('the client closed the connection'));
    try {
      conn.ws.close(1000);
    } catch (err) {
      this.log(`close: ${err.message}`);
    }
  }

  // lost is the end of a connection: the host went away, the network dropped, or close.
  lost(conn, ev) {
    conn.closed = true;
    this.fail(conn, new Error(`connection closed (code ${ev.code})`));
    if (conn.closing || this.conn !== conn) {
      return; // closed on purpose, already forgotten
    }
    this.conn = null;
    const reason = ev.reason ? `code ${ev.code}: ${ev.reason}` : `code ${ev.code}`;
    this.observe('transport-closed', {reason: `websocket closed, ${reason}`});
  }

  fail(conn, err) {
    for (const p of conn.pending.values()) {
      p.reject(err);
    }
    conn.pending.clear();
  }

  current() {
    if (!this.conn || this.conn.closed) {
      throw new Error('not connected to the host');
    }
    return this.conn;
  }

  send(conn, msg) {
    conn.ws.send(JSON.stringify(msg));
  }

  // call sends one request and resolves to its result; an error reply rejects with an
  // RPCError.
  call(method, params, conn = this.current()) {
    const id = this.nextID++;
    const req = {jsonrpc: '2.0', id, method};
    if (params !== undefined) {
      req.params = params;
    }
    return new Promise((resolve, reject) => {
      conn.pending.set(id, {method, resolve, reject});
      try {
        this.send(conn, req);
      } catch (err) {
        conn.pending.delete(id);
        reject(new Error(`${method}: ${err.message}`));
      }
    });
  }

  // batch sends several requests as one message (a JSON array) and resolves to one
  // outcome per request, in order: {result} or {error: RPCError}.
  batch(specs) {
    const conn = this.current();
    const reqs = specs.map(({method, params}) => ({jsonrpc: '2.0', id: this.nextID++, method, params}));
    const outcomes = reqs.map((r) => new Promise((resolve, reject) => {
      conn.pending.set(r.id, {method: r.method,
        resolve: (result) => resolve({result}),
        reject: (err) => (err instanceof RPCError ? resolve({error: err}) : reject(err))});
    }));
    try {
      this.send(conn, reqs);
    } catch (err) {
      for (const r of reqs) {
        conn.pending.get(r.id).reject(new Error(`a batch of ${reqs.length}: ${err.message}`));
        conn.pending.delete(r.id);
      }
    }
    return Promise.all(outcomes);
  }

  notify(method, params) {
    this.send(this.current(), {jsonrpc: '2.0', method, params});
  }

  // onMessage handles one message from the host, read by readFromHost.
  onMessage(conn, data) {
    const binary = typeof data !== 'string';
    let read;
    try {
      read = readFromHost(this.features, binary, binary ? Buffer.from(data) : data);
    } catch (err) {
      this.observe('refused', {direction: 'H>C', type: '', reason: err.message, silent: false});
      return;
    }
    for (const m of read.messages) {
      if (m.method) {
        if (m.err) {
          this.observe('refused', {direction: 'H>C', type: m.method, reason: m.err.message, silent: true});
        } else if (m.method === NOTICE) {
          this.ack(NOTICE, m.params.seq);
        }
        continue;
      }
      const p = conn.pending.get(m.id);
      if (!p) {
        this.log(`a reply to no pending call (id ${JSON.stringify(m.id)}): dropped`);
        continue;
      }
      conn.pending.delete(m.id);
      if (m.err) {
        p.reject(new Error(`${p.method}: ${m.err.message}`));
      } else if (m.error) {
        p.reject(new RPCError(p.method, m.error));
      } else {
        p.resolve(m.result);
      }
    }
  }

  // ack acknowledges a notification twice where the doubleAck switch is on.
  ack(of, seq) {
    if (!this.features.doubleAck) {
      return;
    }
    for (let i = 0; i < 2; i++) {
      try {
        this.notify(ACK, {of, seq});
      } catch (err) {
        this.log(`ack ${of} ${seq}: ${err.message}`);
        return;
      }
    }
  }

  // rpcError reports an error reply (or a failed call).
  rpcError(method, err) {
    const data = {method, message: err.message};
    if (err instanceof RPCError) {
      data.code = err.code;
    }
    this.observe('rpc-error', data);
  }

  // putParams are notes.put's params for a note, as this release writes them.
  putParams(id, text, tags) {
    const p = {id};
    if (this.features.putSendsContent) {
      p.content = text; // the negative-control switch: the text under the wrong key
    } else {
      p.text = text;
    }
    if (this.features.tags && Array.isArray(tags) && tags.length > 0) {
      p.tags = tags;
    }
    return p;
  }

  /** Writes a note: {id, rev}. An error reply is reported and rejects with an RPCError. */
  async put(id, text, tags) {
    try {
      const res = await this.call(PUT, this.putParams(id, text, tags));
      return {id: res.id, rev: res.rev};
    } catch (err) {
      if (err instanceof RPCError) {
        this.rpcError(PUT, err);
      }
      throw err;
    }
  }

  /**
   * Writes several notes in one JSON-RPC batch (one WebSocket message holding a JSON
   * array): one {id, rev} per note, in order. Error replies are reported; the first rejects.
   */
  async importNotes(notes) {
    const outcomes = await this.batch(notes.map((n) => ({method: PUT, params: this.putParams(n.id, n.text, n.tags)})));
    const out = [];
    let first = null;
    for (const o of outcomes) {
      if (o.error) {
        this.rpcError(PUT, o.error);
        first = first || o.error;
        out.push({});
        continue;
      }
      out.push({id: o.result.id, rev: o.result.rev});
    }
    if (first) {
      throw first;
    }
    return out;
  }

  /** Reads a note; an error reply (no such note) is reported and rejects with an RPCError. */
  async get(id) {
    let n;
    try {
      n = await this.call(GET, {id});
    } catch (err) {
      this.rpcError(GET, err);
      throw err;
    }
    this.observe('note', noteData(n || {}));
    return n;
  }

  /** Reads every note: {notes, cursor}. */
  async list() {
    let res;
    try {
      res = await this.call(LIST);
    } catch (err) {
      this.rpcError(LIST, err);
      throw err;
    }
    const notes = Array.isArray(res && res.notes) ? res.notes : [];
    this.observe('listed', {ids: notes.map((n) => n.id), cursor: res.cursor});
    return res;
  }

  /**
   * Finds notes with notes.search; against a host that does not serve it (method not
   * found) it falls back to notes.list and filters here.
   */
  async search(query) {
    if (!this.features.search) {
      throw new Error('this release has no search');
    }
    let notes;
    let via = SEARCH;
    try {
      const res = await this.call(SEARCH, {query});
      notes = Array.isArray(res && res.notes) ? res.notes : [];
    } catch (err) {
      this.rpcError(SEARCH, err);
      if (!(err instanceof RPCError) || err.code !== METHOD_NOT_FOUND) {
        throw err;
      }
      via = LIST;
      const all = await this.list();
      const q = query.toLowerCase();
      notes = (all.notes || []).filter((n) => typeof n.text === 'string' && n.text.toLowerCase().includes(q));
    }
    this.observe('found', {query, ids: notes.map((n) => n.id), via});
    return notes;
  }
}

module.exports = {Client, RPCError, RefusedError, RefusalError, readFromHost, PATH, KIND};
