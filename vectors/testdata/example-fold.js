// A minimal foreign fold in JavaScript for `loom-conform vectors --exec` (docs/vectors.md): it
// answers canonical and digest requests and says "unsupported" to fold requests. Run it as
//   loom-conform vectors vectors/corpus/canonical --exec 'node vectors/testdata/example-fold.js'
'use strict';
const readline = require('readline');

function canonical(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canonical(v[k])).join(',') + '}';
}

function fnv1a64(text) {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(text)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

function answer(req) {
  switch (req.kind) {
    case 'canonical':
      try {
        return { id: req.id, output: canonical(JSON.parse(req.input)) };
      } catch (e) {
        return { id: req.id, error: 'invalid-json', message: e.message };
      }
    case 'digest':
      return { id: req.id, output: fnv1a64(req.segment + '|' + canonical([req.eventType, req.payload])) };
    default:
      return { id: req.id, error: 'unsupported', message: 'this fold only encodes' };
  }
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (line.trim() === '') return;
  process.stdout.write(JSON.stringify(answer(JSON.parse(line))) + '\n');
});
