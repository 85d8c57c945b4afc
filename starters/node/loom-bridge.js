#!/usr/bin/env node
// loom-bridge.js -- a starter store bridge for loom-conform, Node.js (20 or later) standard library
// only.
//
// It serves every seam of the store bridge protocol (docs/bridge.md) from memory: the EventStore
// with every optional method, the SnapshotStore, ArchiveStore and BranchRegistry, the plugin-tier
// ContentStore, DurableStateStore and ReadModelStore, and the ExecutionDispatcher. Run it as it is:
//
//   loom-conform certify all --exec 'node starters/node/loom-bridge.js'
//   loom-conform certify dispatcher --exec 'node starters/node/loom-bridge.js'
//
// Started with no arguments it listens on a free loopback port and prints its URL as the first line
// of standard output ("listening http://127.0.0.1:PORT/"), which is what `certify --exec` reads.
// `--listen HOST:PORT` (or LOOM_BRIDGE_LISTEN, which `certify --image` sets) chooses the address;
// an address beyond loopback needs a bearer token in LOOM_CONFORM_TOKEN.
//
// Copy it as the start of a real adapter (docs/adapting.md walks through it). The file is in layers:
//
//   1. JSON that keeps every value exact (JSON.parse would turn 12345678901234567890 into a double).
//   2. The error codes and the parameter shapes of every wire method (the JSON Schemas in
//      wire/bridge/schema/, written as data).
//   3. One class per seam. Their Maps are where your database goes: each comment marked
//      "real store" says what changes.
//   4. The JSON-RPC frame and the HTTP server.
//
// Layers 1, 2 and 4 stay as they are; layer 3 is yours to replace, one seam at a time (declare in
// HANDSHAKE only the methods you serve). Node runs one call at a time and the calls below never
// wait, so each is atomic; a real store's calls wait on I/O (return a promise: it is awaited) and
// interleave, so it gets atomicity from its database instead: one transaction per call.
'use strict';
const crypto = require('node:crypto');
const http = require('node:http');
const net = require('node:net');

const IMPLEMENTATION = { name: 'loom-starter-node', version: '0.1.0' };

// ---------------------------------------------------------------------------------------------
// 1. JSON, value for value (docs/bridge.md, "Values"; I-STORE-3)
// ---------------------------------------------------------------------------------------------
// Payloads, metadata, snapshot states, durable values and documents must come back as the same
// JSON value: 12345678901234567890 stays that integer and 0.1 stays 0.1. JSON.parse reads every
// number as a double, so this parser keeps each number's text (JsonNumber), objects have no
// prototype (a "__proto__" key is data), and a key that appears twice is refused.

class JsonNumber {
  constructor(text) { this.text = text; }
}

class JsonError extends Error {
  constructor(message, code) { super(message); this.code = code; }
}

const MAX_DEPTH = 1000;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const PLAIN = /[^"\\\x00-\x1f]*/y;
const ESCAPES = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

function parse(text) {
  let i = 0;
  const fail = (why) => { throw new JsonError(`${why} at offset ${i}`, PARSE_ERROR); };
  const space = () => { while (' \t\n\r'.includes(text[i]) && i < text.length) i++; };
  const expect = (c) => { space(); if (text[i] !== c) fail(`want ${c}`); i++; };
  function string() {
    expect('"');
    let out = '';
    for (;;) {
      PLAIN.lastIndex = i; // a run of characters that need no decoding, taken at once
      const run = PLAIN.exec(text)[0];
      out += run;
      i += run.length;
      const c = text[i++];
      if (c === undefined) fail('unterminated string');
      if (c === '"') return out;
      if (c !== '\\') fail('control character in a string');
      const e = text[i++];
      if (e === 'u') {
        const hex = text.slice(i, i + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
        out += String.fromCharCode(parseInt(hex, 16));
        i += 4;
      } else if (Object.hasOwn(ESCAPES, e)) {
        out += ESCAPES[e];
      } else {
        fail('bad escape');
      }
    }
  }
  function value(depth) {
    if (depth > MAX_DEPTH) throw new JsonError('the request is nested too deeply', TOO_LARGE);
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj = Object.create(null);
      space();
      if (text[i] === '}') { i++; return obj; }
      for (;;) {
        const key = string();
        if (key in obj) throw new JsonError(`the key ${JSON.stringify(key)} appears twice in one object`, INVALID_REQUEST);
        expect(':');
        obj[key] = value(depth + 1);
        space();
        if (text[i] === '}') { i++; return obj; }
        expect(',');
      }
    }
    if (c === '[') {
      i++;
      const arr = [];
      space();
      if (text[i] === ']') { i++; return arr; }
      for (;;) {
        arr.push(value(depth + 1));
        space();
        if (text[i] === ']') { i++; return arr; }
        expect(',');
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, i)) { i += word.length; return v; }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) fail('want a JSON value');
    i += m[0].length;
    return new JsonNumber(m[0]);
  }
  const v = value(0);
  space();
  if (i !== text.length) fail('text after the JSON value');
  return v;
}

function stringify(v) {
  if (v === null) return 'null';
  if (v instanceof JsonNumber) return v.text;
  switch (typeof v) {
    case 'boolean': return String(v);
    case 'number': return String(v); // integers this bridge makes: tokens, versions, sizes
    case 'bigint': return String(v); // an int64 past 2^53, as it came
    case 'string': return JSON.stringify(v);
  }
  if (Array.isArray(v)) return '[' + v.map(stringify).join(',') + ']';
  return '{' + Object.keys(v).map((k) => JSON.stringify(k) + ':' + stringify(v[k])).join(',') + '}';
}

// The exact decimal value of a number's text, as "digits e exponent" with no trailing zeros.
function decimalValue(text) {
  const [, sign, int, frac = '', exp = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  let digits = (int + frac).replace(/^0+/, '');
  let e = Number(exp) - frac.length;
  while (digits.endsWith('0')) { digits = digits.slice(0, -1); e++; }
  return digits === '' ? '0' : `${sign}${digits}e${e}`;
}

// Equal as JSON values (I-STORE-29): key order and number spelling aside (1 == 1.0 == 10e-1).
function sameJson(a, b) {
  if (a instanceof JsonNumber || b instanceof JsonNumber) {
    return a instanceof JsonNumber && b instanceof JsonNumber && decimalValue(a.text) === decimalValue(b.text);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return a === b;
}

// Ids sort in UTF-8 byte order (I-STORE-28). JavaScript's < compares UTF-16 code units, which puts
// characters beyond U+FFFF before U+E000..U+FFFF: compare the UTF-8 bytes instead.
const utf8Compare = (a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
const byId = (a, b) => utf8Compare(a.id, b.id);

// ---------------------------------------------------------------------------------------------
// 2. Errors and parameter shapes (docs/bridge.md, "Errors" and "Methods")
// ---------------------------------------------------------------------------------------------

const PARSE_ERROR = -32700, INVALID_REQUEST = -32600, METHOD_NOT_FOUND = -32601, INVALID_PARAMS = -32602, INTERNAL = -32603;
const CONFLICT = -32001, FENCED = -32002, NOT_FOUND = -32003, ALREADY_EXISTS = -32004, INVALID_ARGUMENT = -32005;
const TOO_LARGE = -32008, UNKNOWN_TARGET = -32009, LEASE_LOST = -32010;

class RpcError extends Error {
  constructor(code, message, data) { super(message); this.code = code; this.data = data; }
  toJSON() { return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data }; }
}

// -32005: the call is malformed and nothing changed.
const invalid = (op, argument, reason) =>
  new RpcError(INVALID_ARGUMENT, `${op}: invalid ${argument}: ${reason}`, { op, argument, reason });
// -32001: an optimistic write lost. expected and actual are sequences (or versions).
const conflict = (executionId, expected, actual, reason) =>
  new RpcError(CONFLICT, `conflict on ${JSON.stringify(executionId)}: ${reason}`, { executionId, expected, actual, reason });
const notFound = (what) => new RpcError(NOT_FOUND, `not found: ${what}`);
const q = JSON.stringify;

// The parameter shapes. An object is an object with exactly these members ("name?" = optional,
// absent rather than null); the strings 'string', 'int', 'bool', 'object' are JSON types; [shape]
// is an array of that shape; ANY is any JSON value; a function is a check of its own. check()
// also turns every 'int' member into a JavaScript number, or a BigInt past 2^53 (the kits'
// integers are int64; the sequences and timestamps of envelopes are at most 2^53-1, docs/bridge.md
// "Values").
const ANY = Symbol('any');
const base64Text = (v) => typeof v === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(v) && v.length % 4 === 0;
const ttl = (v) => v instanceof JsonNumber && /^\d+$/.test(v.text) && Number(v.text) >= 1 && Number(v.text) <= 600000;
Object.defineProperty(base64Text, 'name', { value: 'standard base64 with padding' });
Object.defineProperty(ttl, 'name', { value: 'an integer from 1 to 600000' });

const ENVELOPE = {
  id: 'string', workflowId: 'string', executionId: 'string', eventType: 'string',
  sequence: 'int', timestamp: 'int', payload: ANY, 'metadata?': 'object',
};
const SNAPSHOT = { executionId: 'string', sequence: 'int', state: ANY, 'sealed?': 'bool' };
const BRANCH = { id: 'string', parentId: 'string', forkSequence: 'int', 'metadata?': 'object' };
const PACKAGE = { executionId: 'string', flowId: 'string', 'target?': 'string', 'hints?': 'object' };
const LEASE = { token: 'string', package: PACKAGE, worker: 'string', delivery: 'int', expiresAt: 'int' };

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonNumber);

// check raises -32602 naming the first member of value that does not have shape.
function check(value, shape, path) {
  const fail = (want) => { throw new RpcError(INVALID_PARAMS, `invalid params at ${path}: want ${want}`, { argument: path, reason: `want ${want}` }); };
  if (shape === ANY) return value;
  if (typeof shape === 'function') return shape(value) ? (shape === ttl ? Number(value.text) : value) : fail(shape.name);
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) fail('an array');
    return value.map((item, i) => check(item, shape[0], `${path}[${i}]`));
  }
  if (typeof shape === 'object') {
    if (!isObject(value)) fail('an object');
    const members = new Map(Object.entries(shape).map(([k, s]) => [k.replace(/\?$/, ''), [k.endsWith('?'), s]]));
    for (const name of Object.keys(value)) if (!members.has(name)) fail(`no member ${q(name)}`);
    for (const [name, [optional, member]] of members) {
      if (Object.hasOwn(value, name)) value[name] = check(value[name], member, `${path}.${name}`);
      else if (!optional) fail(`the member ${q(name)}`);
    }
    return value;
  }
  switch (shape) {
    case 'string': return typeof value === 'string' ? value : fail('a string');
    case 'bool': return typeof value === 'boolean' ? value : fail('a boolean');
    case 'object': return isObject(value) ? value : fail('an object');
    case 'int': {
      if (!(value instanceof JsonNumber) || !/^-?\d+$/.test(value.text)) return fail('an integer');
      const n = Number(value.text); // past 2^53 (a fork sequence, a snapshot's): a BigInt, kept exact
      return Number.isSafeInteger(n) ? n : BigInt(value.text);
    }
  }
  throw new Error(`unknown shape ${String(shape)}`);
}

// The rules of a batch of envelopes (docs/spi.md, "Errors"): one execution, a non-negative first
// sequence, then dense (the event log) or strictly increasing (the archive).
// NAMES are the members that name something (docs/bridge.md, "Names"): compared as bytes, and
// never holding a lone surrogate, which a store would otherwise decode to U+FFFD and merge with
// another name. Values (payloads, states, documents, hints) keep lone surrogates.
const NAMES = new Set(['executionId', 'source', 'target', 'parentId', 'key', 'owner', 'model', 'worker', 'targets']);
const VALUES = new Set(['payload', 'metadata', 'state', 'value', 'doc', 'hints', 'data']);

// checkNames raises -32602 for a name (a NAMES member, at any depth outside values) that holds a
// lone surrogate.
function checkNames(value, path) {
  if (Array.isArray(value)) {
    value.forEach((item, i) => checkNames(item, `${path}[${i}]`));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [name, member] of Object.entries(value)) {
    if (VALUES.has(name)) continue;
    const sub = `${path}.${name}`;
    if (NAMES.has(name)) {
      for (const s of Array.isArray(member) ? member : [member]) {
        if (typeof s === 'string' && !s.isWellFormed()) {
          throw new RpcError(INVALID_PARAMS, `invalid params at ${sub}: a name holds a lone surrogate`, { argument: sub, reason: 'a name with a lone surrogate' });
        }
      }
    }
    checkNames(member, sub);
  }
}

function checkBatch(op, executionId, events, dense = true) {
  if (executionId === '') throw invalid(op, 'executionId', 'empty');
  events.forEach((e, i) => {
    if (e.executionId !== executionId) throw invalid(op, 'events', `envelope ${i} has executionId ${q(e.executionId)}, want ${q(executionId)}`);
    if (i === 0 && e.sequence < 0) throw invalid(op, 'events', `envelope 0 has sequence ${e.sequence}, want >= 0`);
    const prev = i > 0 ? events[i - 1].sequence : null;
    if (i > 0 && dense && e.sequence !== prev + 1) throw invalid(op, 'events', `envelope ${i} has sequence ${e.sequence}, want ${prev + 1} (dense)`);
    if (i > 0 && !dense && e.sequence <= prev) throw invalid(op, 'events', `envelope ${i} has sequence ${e.sequence}, not after ${prev}`);
  });
}

// ---------------------------------------------------------------------------------------------
// 3. The seams. Each class names its wire prefix (WIRE), its handshake seam and SPI version, the
// manifest methods it declares (DECLARES) and one parameter shape per wire method (PARAMS); a
// method of the same name takes the checked params and returns the result (or a promise of it)
// or throws RpcError.
// ---------------------------------------------------------------------------------------------

// The event log (docs/spi.md section 2). Real store: a table of envelopes keyed by (execution id,
// sequence) and a table of one row per execution id holding next, incarnation and fence, which
// outlives deleteExecution.
class EventStore {
  static WIRE = 'eventStore'; static SEAM = 'EventStore'; static SPI = '2.6.0';
  static DECLARES = ['append', 'read', 'readRange', 'acquireFence', 'acquireFenceIf', 'appendIfUnchanged',
    'storeNow', 'deleteThrough', 'sealingCapability', 'copyPrefix', 'deleteExecution', 'listExecutionsPage'];
  static PARAMS = {
    append: { executionId: 'string', events: [ENVELOPE], 'fence?': 'int' },
    read: { executionId: 'string' },
    readRange: { executionId: 'string', from: 'int', to: 'int' },
    acquireFence: { executionId: 'string' },
    acquireFenceIf: { executionId: 'string', expected: 'int' },
    observe: { executionId: 'string' },
    appendIfUnchanged: { executionId: 'string', anchor: 'string', events: [ENVELOPE], 'fence?': 'int' },
    storeNow: {},
    deleteThrough: { executionId: 'string', through: 'int' },
    sealingCapability: {},
    copyPrefix: { source: 'string', target: 'string', through: 'int' },
    deleteExecution: { executionId: 'string' },
    listExecutionsPage: { cursor: 'string', limit: 'int' },
  };

  logs = new Map();
  lastNow = 0;

  // events ascending (after deleteThrough the first is not sequence 0); next = the next free
  // sequence, never reused within an incarnation; incarnation raised by deleteExecution (the SPI
  // 2.3.0 anchor rule); fence = the current token, 0 = never fenced.
  log(id) {
    if (!this.logs.has(id)) this.logs.set(id, { events: [], next: 0, incarnation: 0, fence: 0 });
    return this.logs.get(id);
  }

  static anchor(log) { return `${log.incarnation}:${log.next}`; }

  append(p, op = 'append', anchor = undefined) {
    const { executionId: id, events } = p;
    checkBatch(op, id, events); // refusal order: invalid, fenced, conflict (I-STORE-50)
    const log = this.log(id);
    const fence = p.fence ?? 0;
    if (fence !== 0 && fence !== log.fence) { // an unfenced write is not fence-checked (I-STORE-67)
      throw new RpcError(FENCED, `execution ${q(id)} is fenced: token ${fence} presented, current token is ${log.fence}`,
        { executionId: id, held: fence, current: log.fence });
    }
    if (anchor !== undefined && anchor !== EventStore.anchor(log)) throw conflict(id, -1, log.next, 'log changed since the observation anchor');
    if (events.length === 0) return null;
    const first = events[0].sequence;
    if (first !== log.next) throw conflict(id, first, log.next, `append at sequence ${first}, next free is ${log.next}`);
    log.events.push(...events);
    log.next += events.length;
    return null;
  }

  read(p) { return this.readRange({ executionId: p.executionId, from: 0, to: -1 }); }

  readRange({ executionId, from, to }) {
    if (from < 0) throw invalid('readRange', 'from', `${from} is negative`);
    const log = this.logs.get(executionId);
    return log ? log.events.filter((e) => e.sequence >= from && (to < 0 || e.sequence < to)) : [];
  }

  acquireFence({ executionId }) {
    if (executionId === '') throw invalid('acquireFence', 'executionId', 'empty');
    const log = this.log(executionId);
    log.fence++;
    return { executionId, token: log.fence };
  }

  acquireFenceIf({ executionId, expected }) {
    if (executionId === '') throw invalid('acquireFenceIf', 'executionId', 'empty');
    const log = this.log(executionId);
    if (log.fence !== expected) {
      throw new RpcError(FENCED, `execution ${q(executionId)}: fence ${expected} expected, current token is ${log.fence}`,
        { executionId, held: expected, current: log.fence });
    }
    log.fence++;
    return { executionId, token: log.fence };
  }

  observe({ executionId }) {
    const log = this.logs.get(executionId);
    return { anchor: log ? EventStore.anchor(log) : '0:0' };
  }

  appendIfUnchanged(p) { return this.append(p, 'appendIfUnchanged', p.anchor); }

  storeNow() {
    // Real store: the database's clock (PostgreSQL: clock_timestamp()), in epoch milliseconds.
    this.lastNow = Math.max(this.lastNow, Date.now());
    return { now: this.lastNow };
  }

  deleteThrough({ executionId, through }) {
    if (through < 0) throw invalid('deleteThrough', 'through', `${through} is negative`);
    const log = this.logs.get(executionId);
    if (log) log.events = log.events.filter((e) => e.sequence > through);
    return null;
  }

  sealingCapability() { return null; } // this store seals nothing

  copyPrefix({ source, target, through }) {
    if (source === '' || target === '' || source === target) throw invalid('copyPrefix', 'source/target', 'must be two different non-empty ids');
    const src = this.logs.get(source);
    if (!src || through < 0 || through >= src.next) throw invalid('copyPrefix', 'through', `${through} is outside the source log`);
    if (src.events.length === 0 || src.events[0].sequence !== 0) throw invalid('copyPrefix', 'source', `the prefix of ${q(source)} is no longer stored`);
    const dst = this.log(target);
    // Written once, even if deleteThrough emptied it since (I-STORE-52).
    if (dst.next !== 0) throw new RpcError(ALREADY_EXISTS, `copyPrefix: target ${q(target)} is not empty`);
    dst.events = src.events.filter((e) => e.sequence <= through).map((e) => ({ ...e, executionId: target }));
    dst.next = through + 1;
    return null;
  }

  deleteExecution({ executionId }) {
    const log = this.logs.get(executionId);
    if (log) {
      log.events = [];
      log.next = 0;
      log.incarnation++; // an anchor observed before never matches again
      log.fence++; //       every token issued before is stale (I-STORE-51)
    }
    return null;
  }

  listExecutionsPage({ cursor, limit }) {
    if (limit < 1) throw invalid('listExecutionsPage', 'limit', `${limit} is below 1`);
    const ids = [...this.logs].filter(([id, log]) => log.events.length > 0 && utf8Compare(id, cursor) > 0).map(([id]) => id).sort(utf8Compare);
    if (ids.length > limit) return { executionIds: ids.slice(0, limit), next: ids[limit - 1] };
    return { executionIds: ids, next: '' };
  }
}

// Snapshots (docs/spi.md section 3). Real store: a table keyed by (execution id, sequence).
class SnapshotStore {
  static WIRE = 'snapshotStore'; static SEAM = 'SnapshotStore'; static SPI = '1.3.0';
  static DECLARES = ['save', 'loadLatest', 'deleteExecution', 'loadLatestSealed', 'pruneSnapshots', 'listSequences'];
  static PARAMS = {
    save: { snapshot: SNAPSHOT },
    loadLatest: { executionId: 'string' },
    loadLatestSealed: { executionId: 'string' },
    deleteExecution: { executionId: 'string' },
    pruneSnapshots: { executionId: 'string', from: 'int', through: 'int' },
    listSequences: { executionId: 'string' },
  };

  snapshots = new Map(); // execution id -> Map(sequence -> snapshot)

  save({ snapshot: s }) {
    if (s.executionId === '') throw invalid('save', 'executionId', 'empty');
    if (s.sequence < 0) throw invalid('save', 'sequence', `${s.sequence} is negative`);
    if (!isObject(s.state)) throw invalid('save', 'state', 'not a JSON object (a folded state)');
    const stored = { executionId: s.executionId, sequence: s.sequence, state: s.state };
    if (s.sealed) stored.sealed = true; // absent when false, never "sealed": false
    if (!this.snapshots.has(s.executionId)) this.snapshots.set(s.executionId, new Map());
    this.snapshots.get(s.executionId).set(s.sequence, stored); // replaces the whole record
    return null;
  }

  latest(executionId, sealedOnly) {
    const found = [...(this.snapshots.get(executionId)?.values() ?? [])].filter((s) => s.sealed || !sealedOnly);
    if (found.length === 0) throw notFound(`no snapshot of ${q(executionId)}`);
    return found.reduce((a, b) => (b.sequence > a.sequence ? b : a));
  }

  loadLatest({ executionId }) { return this.latest(executionId, false); }
  loadLatestSealed({ executionId }) { return this.latest(executionId, true); }
  deleteExecution({ executionId }) { this.snapshots.delete(executionId); return null; }

  pruneSnapshots({ executionId, from, through }) {
    if (from > through) throw invalid('pruneSnapshots', 'range', `from ${from} is after through ${through}`);
    const snaps = this.snapshots.get(executionId) ?? new Map();
    const gone = [...snaps.keys()].filter((seq) => seq >= from && seq <= through).sort((a, b) => a - b);
    gone.forEach((seq) => snaps.delete(seq));
    return gone;
  }

  listSequences({ executionId }) { return [...(this.snapshots.get(executionId)?.keys() ?? [])].sort((a, b) => a - b); }
}

// The compaction archive (docs/spi.md section 4). Real store: a table keyed by (execution id,
// sequence); an insert that finds a different row is a conflict and rolls the call back.
class ArchiveStore {
  static WIRE = 'archiveStore'; static SEAM = 'ArchiveStore'; static SPI = '1.1.0';
  static DECLARES = ['append', 'read', 'deleteExecution', 'replaceSegments'];
  static PARAMS = {
    append: { executionId: 'string', events: [ENVELOPE] },
    read: { executionId: 'string' },
    deleteExecution: { executionId: 'string' },
    replaceSegments: { executionId: 'string', from: 'int', through: 'int', events: [ENVELOPE] },
  };

  archives = new Map(); // execution id -> Map(sequence -> envelope)

  append({ executionId, events }) {
    checkBatch('append', executionId, events, false); // gaps are fine (I-STORE-53)
    const archive = this.archives.get(executionId) ?? new Map();
    for (const e of events) { // check the whole call before writing any of it
      const old = archive.get(e.sequence);
      if (old && !sameJson(old, e)) throw new RpcError(CONFLICT, `archive of ${q(executionId)}: a different envelope is archived at sequence ${e.sequence}`);
    }
    this.archives.set(executionId, archive);
    for (const e of events) if (!archive.has(e.sequence)) archive.set(e.sequence, e); // kept once (I-STORE-70)
    return null;
  }

  read({ executionId }) {
    const archive = this.archives.get(executionId) ?? new Map();
    return [...archive.keys()].sort((a, b) => a - b).map((seq) => archive.get(seq));
  }

  deleteExecution({ executionId }) { this.archives.delete(executionId); return null; }

  replaceSegments({ executionId, from, through, events }) {
    if (from < 0 || from > through) throw invalid('replaceSegments', 'range', `[${from}, ${through}] is empty or negative`);
    checkBatch('replaceSegments', executionId, events, false);
    events.forEach((e, i) => {
      if (e.sequence < from || e.sequence > through) {
        throw invalid('replaceSegments', 'events', `envelope ${i} has sequence ${e.sequence} outside [${from}, ${through}]`);
      }
    });
    if (!this.archives.has(executionId)) this.archives.set(executionId, new Map());
    const archive = this.archives.get(executionId);
    for (const seq of [...archive.keys()]) if (seq >= from && seq <= through) archive.delete(seq);
    for (const e of events) archive.set(e.sequence, e);
    return null;
  }
}

// Branches (docs/spi.md section 5). Real store: a table keyed by branch id, indexed by parent.
class BranchRegistry {
  static WIRE = 'branchRegistry'; static SEAM = 'BranchRegistry'; static SPI = '1.0.0';
  static DECLARES = ['register', 'get', 'listChildren'];
  static PARAMS = { register: { branch: BRANCH }, get: { id: 'string' }, listChildren: { parentId: 'string' } };

  branches = new Map();

  register({ branch: b }) {
    if (b.id === '' || b.parentId === '') throw invalid('register', b.id === '' ? 'id' : 'parentId', 'empty');
    if (b.parentId === b.id) throw invalid('register', 'parentId', `${q(b.id)} is the branch itself`);
    if (b.forkSequence < 0) throw invalid('register', 'forkSequence', `${b.forkSequence} is negative`);
    const old = this.branches.get(b.id);
    if (old) {
      if (sameJson(old, b)) return null; // the same branch again (I-STORE-72)
      throw new RpcError(ALREADY_EXISTS, `branch ${q(b.id)} is registered with other values`);
    }
    for (let parent = b.parentId, steps = 0; this.branches.has(parent) && steps <= this.branches.size; steps++) {
      parent = this.branches.get(parent).parentId;
      if (parent === b.id) throw invalid('register', 'parentId', `${q(b.parentId)} would make a cycle`);
    }
    this.branches.set(b.id, b);
    return null;
  }

  get({ id }) {
    const b = this.branches.get(id);
    if (!b) throw notFound(`branch ${q(id)}`);
    return b;
  }

  listChildren({ parentId }) { return [...this.branches.values()].filter((b) => b.parentId === parentId).sort(byId); }
}

const digestOf = (data) => 'sha256:' + crypto.createHash('sha256').update(data).digest('hex');

// Content by digest, partitioned by owner (docs/spi.md section 9; streams: docs/bridge.md,
// "Streams"). Real store: a blob table or an object store keyed by (owner, digest); a stream is
// written to a temporary object and made visible by one insert or rename at commit.
class ContentStore {
  static WIRE = 'contentStore'; static SEAM = 'ContentStore'; static SPI = '1.5.0';
  static DECLARES = ['put', 'get', 'putStream', 'owner', 'sealsContent'];
  static PARAMS = {
    put: { data: base64Text, 'owner?': 'string' },
    get: { digest: 'string', 'owner?': 'string' },
    streamOpen: { 'owner?': 'string' },
    streamWrite: { streamId: 'string', offset: 'int', data: base64Text },
    streamCommit: { streamId: 'string', size: 'int' },
    streamAbort: { streamId: 'string' },
    sealsContent: {},
  };
  static MAX_STREAM_BYTES = 256 << 20;
  static STREAM_IDLE_MS = 120_000;

  content = new Map(); // JSON [owner, digest] -> Buffer; "" is no owner
  streams = new Map(); // stream id -> { owner, chunks, size, touched }

  static bytes(op, text) {
    const data = Buffer.from(text, 'base64');
    if (data.toString('base64') !== text) throw invalid(op, 'data', 'not standard base64 with padding');
    return data;
  }

  store(owner, data) {
    const digest = digestOf(data);
    const key = q([owner, digest]);
    if (!this.content.has(key)) this.content.set(key, data);
    return { digest, size: data.length };
  }

  put({ data, owner = '' }) { return this.store(owner, ContentStore.bytes('put', data)); }

  get({ digest, owner = '' }) {
    if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw invalid('get', 'digest', `${q(digest)} is not sha256:<64 lower-case hex digits>`);
    const data = this.content.get(q([owner, digest]));
    if (!data) throw notFound(`content ${digest}`); // another owner's content is not found either
    return { data: data.toString('base64') };
  }

  streamOpen({ owner = '' }) {
    const now = Date.now();
    for (const [id, st] of this.streams) if (now - st.touched > ContentStore.STREAM_IDLE_MS) this.streams.delete(id); // abandoned
    const streamId = crypto.randomBytes(16).toString('hex');
    this.streams.set(streamId, { owner, chunks: [], size: 0, touched: now });
    return { streamId };
  }

  stream(op, streamId) {
    const st = this.streams.get(streamId);
    if (!st) throw invalid(op, 'streamId', `${q(streamId)} is not an open stream`);
    st.touched = Date.now();
    return st;
  }

  streamWrite({ streamId, offset, data }) {
    const st = this.stream('streamWrite', streamId);
    if (offset !== st.size) throw invalid('streamWrite', 'offset', `${offset}, but ${st.size} bytes were written`); // no chunk twice
    const chunk = ContentStore.bytes('streamWrite', data);
    if (st.size + chunk.length > ContentStore.MAX_STREAM_BYTES) {
      this.streams.delete(streamId);
      throw new RpcError(TOO_LARGE, `stream exceeds ${ContentStore.MAX_STREAM_BYTES} bytes: aborted`);
    }
    st.chunks.push(chunk);
    st.size += chunk.length;
    return null;
  }

  streamCommit({ streamId, size }) {
    const st = this.stream('streamCommit', streamId);
    this.streams.delete(streamId); // committed or aborted: finished either way
    if (size !== st.size) throw invalid('streamCommit', 'size', `${size}, but ${st.size} bytes were written: stream aborted`);
    return this.store(st.owner, Buffer.concat(st.chunks));
  }

  streamAbort({ streamId }) { this.streams.delete(streamId); return null; } // unknown or finished: a no-op

  sealsContent() { return { seals: false }; }
}

// Versioned key/value state (docs/spi.md section 10). Real store: a table of (key, value, version)
// plus the highest version each key ever had, so versions never repeat across a delete.
class DurableStateStore {
  static WIRE = 'durableStateStore'; static SEAM = 'DurableStateStore'; static SPI = '1.0.0';
  static DECLARES = ['get', 'set', 'delete'];
  static PARAMS = {
    get: { key: 'string' },
    set: { key: 'string', value: ANY, 'ifVersion?': 'int' },
    delete: { key: 'string', 'ifVersion?': 'int' },
  };

  entries = new Map(); // key -> { key, value, version }
  last = new Map(); //    key -> highest version ever given

  check(op, p) {
    if (p.key === '') throw invalid(op, 'key', 'empty');
    if (p.ifVersion < 0) throw invalid(op, 'ifVersion', `${p.ifVersion} is negative`);
    const current = this.entries.get(p.key)?.version ?? 0;
    if (p.ifVersion !== undefined && p.ifVersion !== current) { // ifVersion 0: the key must be absent
      throw conflict(p.key, p.ifVersion, current, `key version is ${current}, the write expected ${p.ifVersion}`);
    }
  }

  get({ key }) {
    const entry = this.entries.get(key);
    if (!entry) throw notFound(`key ${q(key)}`);
    return entry;
  }

  set(p) {
    this.check('set', p);
    const version = (this.last.get(p.key) ?? 0) + 1;
    this.last.set(p.key, version);
    this.entries.set(p.key, { key: p.key, value: p.value, version });
    return { version };
  }

  delete(p) {
    this.check('delete', p);
    this.entries.delete(p.key);
    return null;
  }
}

// Projections paged by id (docs/spi.md section 11). Real store: a table keyed by (model, id); a
// page is `WHERE model = $1 AND id > $2 ORDER BY id LIMIT $3` with a byte-order collation.
class ReadModelStore {
  static WIRE = 'readModelStore'; static SEAM = 'ReadModelStore'; static SPI = '1.0.0';
  static DECLARES = ['upsert', 'query'];
  static PARAMS = { upsert: { model: 'string', id: 'string', doc: ANY }, query: { model: 'string', limit: 'int', 'cursor?': 'string' } };
  static MAX_LIMIT = 1000;

  models = new Map(); // model -> Map(id -> doc)
  key = crypto.randomBytes(32); // signs cursors; a real store keeps one secret for good

  sign(body) { return crypto.createHmac('sha256', this.key).update(body).digest('hex').slice(0, 24); }

  cursor(model, lastId) {
    const body = Buffer.from(q([model, lastId]));
    return body.toString('base64url') + '.' + this.sign(body);
  }

  // The last id of the page a cursor ends, if this store issued it for this model.
  after(model, cursor) {
    const [text, sig, ...rest] = cursor.split('.');
    const body = Buffer.from(text, 'base64url');
    if (rest.length === 0 && sig !== undefined && body.toString('base64url') === text && sig === this.sign(body)) {
      const [issuedFor, lastId] = JSON.parse(body.toString()); // signed by us: plain JSON.parse is safe
      if (issuedFor === model) return lastId;
    }
    throw invalid('query', 'cursor', 'not a cursor this store issued for this model');
  }

  upsert({ model, id, doc }) {
    if (model === '' || id === '') throw invalid('upsert', model === '' ? 'model' : 'id', 'empty');
    if (!this.models.has(model)) this.models.set(model, new Map());
    this.models.get(model).set(id, doc); // replaces the whole document
    return null;
  }

  query({ model, limit, cursor }) {
    if (model === '') throw invalid('query', 'model', 'empty');
    if (!(limit >= 1 && limit <= ReadModelStore.MAX_LIMIT)) { // never clamped (I-PLUGIN-8, I-PLUGIN-19)
      throw invalid('query', 'limit', `${limit} is outside 1..${ReadModelStore.MAX_LIMIT}`);
    }
    const after = cursor ? this.after(model, cursor) : null;
    const docs = this.models.get(model) ?? new Map();
    const ids = [...docs.keys()].filter((id) => after === null || utf8Compare(id, after) > 0).sort(utf8Compare);
    return {
      docs: ids.slice(0, limit).map((id) => ({ id, doc: docs.get(id) })),
      nextCursor: ids.length > limit ? this.cursor(model, ids[limit - 1]) : '',
    };
  }
}

// Packages leased to workers (docs/spi.md section 8). Real store: a queue table claimed with
// `SELECT ... FOR UPDATE SKIP LOCKED`, leases timed on the database's clock.
class ExecutionDispatcher {
  static WIRE = 'dispatcher'; static SEAM = 'ExecutionDispatcher'; static SPI = '1.0.0';
  static DECLARES = ['dispatch', 'targets', 'claim', 'heartbeat', 'ack'];
  static PARAMS = {
    dispatch: { package: PACKAGE },
    targets: {},
    claim: { worker: 'string', targets: ['string'], ttlMs: ttl },
    heartbeat: { lease: LEASE, ttlMs: ttl },
    ack: { lease: LEASE },
  };
  static TARGETS = ['default']; // the compute targets this deployment registers, ascending
  static MAX_HINTS_BYTES = 4096;

  queue = []; // entries in dispatch order: { n, pkg, token, worker, until, delivery }
  count = 0;

  dispatch({ package: pkg }) {
    for (const name of ['executionId', 'flowId']) if (pkg[name] === '') throw invalid('dispatch', name, 'empty');
    if (pkg.hints && Buffer.byteLength(stringify(pkg.hints)) > ExecutionDispatcher.MAX_HINTS_BYTES) {
      throw invalid('dispatch', 'hints', `more than ${ExecutionDispatcher.MAX_HINTS_BYTES} bytes: a package carries coordinates, not state`);
    }
    if (pkg.target && !ExecutionDispatcher.TARGETS.includes(pkg.target)) {
      throw new RpcError(UNKNOWN_TARGET, `unknown compute target ${q(pkg.target)}`, { target: pkg.target, known: ExecutionDispatcher.TARGETS });
    }
    this.queue.push({ n: ++this.count, pkg, token: '', worker: '', until: 0, delivery: 0 });
    return null;
  }

  targets() { return ExecutionDispatcher.TARGETS; }

  claim({ worker, targets, ttlMs }) {
    if (worker === '' || targets.length === 0 || targets.includes('')) {
      throw invalid('claim', 'worker/targets', 'a worker names itself and at least one target');
    }
    const now = Date.now();
    const heads = new Set();
    for (const entry of this.queue) { // the oldest deliverable package (I-DISPATCH-12)
      const head = !heads.has(entry.pkg.executionId); // only an execution's oldest package (I-DISPATCH-6)
      heads.add(entry.pkg.executionId);
      const leased = entry.token !== '' && entry.until > now;
      const routed = !entry.pkg.target || targets.includes(entry.pkg.target);
      if (head && !leased && routed) {
        entry.delivery++;
        entry.token = `${entry.n}-${entry.delivery}-${crypto.randomBytes(4).toString('hex')}`;
        entry.worker = worker;
        entry.until = now + ttlMs;
        return { lease: ExecutionDispatcher.lease(entry) };
      }
    }
    return { lease: null };
  }

  static lease(e) { return { token: e.token, package: e.pkg, worker: e.worker, delivery: e.delivery, expiresAt: e.until }; }

  live(lease) {
    const entry = this.queue.find((e) => e.token === lease.token && e.until > Date.now()); // dead at expiresAt
    if (!entry) {
      throw new RpcError(LEASE_LOST, `lease ${q(lease.token)} is lost: it expired`, { executionId: lease.package.executionId, token: lease.token });
    }
    return entry;
  }

  heartbeat({ lease, ttlMs }) {
    const entry = this.live(lease);
    entry.until = Date.now() + ttlMs;
    return ExecutionDispatcher.lease(entry);
  }

  ack({ lease }) {
    const entry = this.live(lease);
    this.queue.splice(this.queue.indexOf(entry), 1);
    return null;
  }
}

const SEAMS = [EventStore, SnapshotStore, ArchiveStore, BranchRegistry, ContentStore, DurableStateStore, ReadModelStore, ExecutionDispatcher];

const HANDSHAKE = {
  protocol: '1.0.0',
  implementation: IMPLEMENTATION,
  seams: Object.fromEntries(SEAMS.map((S) => [S.SEAM, { spiVersion: S.SPI, methods: S.DECLARES }])),
};

// wire method -> [handler, parameter shape]
const ROUTES = new Map([['bridge.handshake', [() => HANDSHAKE, { 'client?': 'string', 'protocol?': 'string' }]]]);
for (const S of SEAMS) {
  const seam = new S();
  for (const [name, shape] of Object.entries(S.PARAMS)) ROUTES.set(`${S.WIRE}.${name}`, [(p) => seam[name](p), shape]);
}

// ---------------------------------------------------------------------------------------------
// 4. JSON-RPC 2.0 over HTTP (docs/bridge.md, "Transport" and "Running it safely")
// ---------------------------------------------------------------------------------------------

const MAX_REQUEST_BYTES = 16 << 20;
const TOKEN = process.env.LOOM_CONFORM_TOKEN ?? '';
const UTF8 = new TextDecoder('utf-8', { fatal: true });

// The JSON-RPC response to one request body (a Buffer). A handler may return a promise (a
// database call): it is awaited.
async function answer(body) {
  let req;
  try {
    req = parse(UTF8.decode(body));
  } catch (e) {
    const code = e instanceof JsonError ? e.code : INVALID_REQUEST; // TextDecoder: not UTF-8
    return { jsonrpc: '2.0', id: null, error: { code, message: e instanceof JsonError ? e.message : 'the request is not valid UTF-8' } };
  }
  const id = isObject(req) ? req.id : undefined;
  if (!isObject(req) || req.jsonrpc !== '2.0' || typeof req.method !== 'string' || !(typeof id === 'string' || id instanceof JsonNumber)) {
    // A batch, a notification (no id: never executed, I-BRIDGE-10) or not a request at all.
    return { jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: 'not a JSON-RPC 2.0 request with an id' } };
  }
  try {
    const route = ROUTES.get(req.method);
    if (!route) throw new RpcError(METHOD_NOT_FOUND, `method not found: ${req.method}`);
    const [handler, shape] = route;
    const params = check(req.params ?? Object.create(null), shape, 'params');
    checkNames(params, 'params');
    return { jsonrpc: '2.0', id, result: await handler(params) };
  } catch (e) {
    if (e instanceof RpcError) return { jsonrpc: '2.0', id, error: e.toJSON() };
    return { jsonrpc: '2.0', id, error: { code: INTERNAL, message: String(e) } }; // a bug: say so, keep serving
  }
}

// DNS rebinding guard: the Host header names an IP address or localhost, never another name.
function hostAllowed(host = '') {
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d*$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || net.isIP(name) !== 0;
}

function reply(res, status, body, headers = {}) {
  // With the length known, Node writes the head and the body in one send; noDelay (below) turns
  // Nagle's algorithm off, which with delayed ACKs makes every small answer wait about 40 ms.
  res.writeHead(status, { 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function refuse(res, status, reason, headers = {}) {
  reply(res, status, reason + '\n', { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close', ...headers });
}

function serve(req, res) {
  if (req.method !== 'POST') return refuse(res, 405, 'POST only', { Allow: 'POST' });
  const ctype = (req.headers['content-type'] ?? '').replace(/ /g, '').toLowerCase();
  if (ctype !== 'application/json' && ctype !== 'application/json;charset=utf-8') return refuse(res, 415, 'POST application/json only');
  if (!hostAllowed(req.headers.host) || req.headers.origin) return refuse(res, 403, 'refused: the Host must be an IP address or localhost, and no Origin');
  const auth = Buffer.from(req.headers.authorization ?? '');
  const want = Buffer.from(`Bearer ${TOKEN}`);
  if (TOKEN && !(auth.length === want.length && crypto.timingSafeEqual(auth, want))) {
    return refuse(res, 401, 'a bearer token is required', { 'WWW-Authenticate': 'Bearer' });
  }
  const json = { 'Content-Type': 'application/json' };
  if (Number(req.headers['content-length'] ?? 0) > MAX_REQUEST_BYTES) {
    const out = { jsonrpc: '2.0', id: null, error: { code: TOO_LARGE, message: `request larger than ${MAX_REQUEST_BYTES} bytes` } };
    return reply(res, 200, stringify(out), { ...json, Connection: 'close' }); // the body is not read
  }
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
  });
  req.on('end', async () => {
    const out = size > MAX_REQUEST_BYTES
      ? { jsonrpc: '2.0', id: null, error: { code: TOO_LARGE, message: `request larger than ${MAX_REQUEST_BYTES} bytes` } }
      : await answer(Buffer.concat(chunks));
    reply(res, 200, stringify(out), json);
  });
}

function main(argv) {
  let listen = process.env.LOOM_BRIDGE_LISTEN || '127.0.0.1:0';
  if (argv.length === 2 && argv[0] === '--listen') listen = argv[1];
  else if (argv.length > 0) fatal('usage: loom-bridge.js [--listen HOST:PORT]  (default 127.0.0.1:0, a free loopback port)');
  const m = /^\[?([^\]]*)\]?:(\d+)$/.exec(listen);
  if (!m) fatal(`loom-bridge.js: --listen ${q(listen)}: want HOST:PORT`);
  const host = m[1] || '127.0.0.1';
  if (!['127.0.0.1', '::1', 'localhost'].includes(host) && TOKEN.length < 16) {
    fatal(`loom-bridge.js: listening on ${host} reaches beyond this machine: set LOOM_CONFORM_TOKEN (16 characters or more)`);
  }
  const server = http.createServer({ noDelay: true, requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 60_000 }, serve);
  server.listen(Number(m[2]), host, () => {
    const shown = host === '0.0.0.0' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    process.stdout.write(`listening http://${shown}:${server.address().port}/\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

function fatal(message) {
  process.stderr.write(message + '\n');
  process.exit(2);
}

main(process.argv.slice(2));
