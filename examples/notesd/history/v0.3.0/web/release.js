'use strict';
// Which release of notesd this web client is, and what that release does: the same
// features table as the Go packages' release.Features (release/release.go), read from the
// release.json the build copies beside this file. Every behaviour that differs between
// releases or switches is decided by a field of it; only the driver reads the file.

// FEATURES are release.Features' keys, every one of them: a key outside this list is an
// error, as it is in Go, so a typo cannot silently turn a behaviour off. (A spec of the Go
// module, release/release_test.go, holds this list to the Go struct.)
const FEATURES = [
  'version',
  'protocol',
  'minCompatible',
  'push',
  'tags',
  'slimPush',
  'slimPushNegotiated',
  'search',
  'keepaliveKnown',
  'compress',
  'pushUngated',
  'hideRev',
  'putSendsContent',
  'dropPushInCall',
  'keepalive',
  'noticeAfterReply',
  'doubleAck',
];

// parse reads a release.json document (or a NOTESD_FEATURES override) over base.
function parse(text, base = {}) {
  const doc = JSON.parse(text);
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new Error('features: not a JSON object');
  }
  for (const k of Object.keys(doc)) {
    if (!FEATURES.includes(k)) {
      throw new Error(`features: unknown field ${JSON.stringify(k)}`);
    }
  }
  return {...base, ...doc};
}

// override lays the fields of a JSON object over f (the NOTESD_FEATURES switch); an empty
// document changes nothing.
function override(f, doc) {
  if (!doc) {
    return f;
  }
  try {
    return parse(doc, f);
  } catch (err) {
    throw new Error(`features ${doc}: ${err.message}`);
  }
}

// window is the protocol window with its defaults: [version, minimum compatible].
function window(f) {
  return [f.protocol || 1, f.minCompatible || 1];
}

module.exports = {FEATURES, parse, override, window};
