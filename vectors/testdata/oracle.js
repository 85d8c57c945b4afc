// Independent oracle for the vectors' canonical-JSON and digest expectations (DESIGN §3.3, §3.4):
// JavaScript's own JSON.parse / JSON.stringify, every object's keys sorted by Array.prototype.sort's
// default order (UTF-16 code units), and FNV-1a 64 computed with BigInt over the UTF-8 bytes.
//
// stdin: a JSON array of {id, kind, input?, segment?, eventType?, payload?, state?}
// stdout: a JSON array of {id, output} or {id, error}
'use strict';

function canonical(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canonical(v[k])).join(',') + '}';
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

function fnv1a64(text) {
  let h = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= BigInt(byte);
    h = (h * FNV_PRIME) & MASK;
  }
  return h.toString(16).padStart(16, '0');
}

const requests = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const answers = requests.map((r) => {
  switch (r.kind) {
    case 'canonical':
      try {
        return { id: r.id, output: canonical(JSON.parse(r.input)) };
      } catch (e) {
        return { id: r.id, error: 'invalid-json' };
      }
    case 'digest':
      return { id: r.id, output: fnv1a64(String(r.segment) + '|' + canonical([r.eventType, r.payload])) };
    case 'fold':
      return { id: r.id, output: canonical(r.state) };
    default:
      return { id: r.id, error: 'unsupported' };
  }
});
process.stdout.write(JSON.stringify(answers));
