// deviant-fold.js: a JavaScript foreign fold with one deliberate deviation, for `vectors fuzz`.
//
//   node deviant-fold.js CMD [ARGS...]
//
// It speaks the vectors line protocol (docs/vectors.md §3) on stdin/stdout and answers every
// request through CMD, a correct fold serving the same protocol (e.g. `loom-conform vectors
// --serve`), except for one mistake a JavaScript port easily makes: it reads an envelope's
// sequence and timestamp with Number(), so a numeric string such as "3" is taken for the integer 3
// where the rule (I-FOLD-22) refuses the envelope as invalid-envelope.
'use strict';
const { spawn } = require('child_process');
const readline = require('readline');

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  process.stderr.write('usage: node deviant-fold.js CMD [ARGS...]\n');
  process.exit(2);
}
const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
child.on('exit', (code) => process.exit(code === null ? 1 : code));

// The deviation: numeric strings become numbers.
function coerce(ev) {
  if (ev === null || typeof ev !== 'object' || Array.isArray(ev)) return ev;
  for (const k of ['sequence', 'timestamp']) {
    if (typeof ev[k] === 'string' && ev[k].trim() !== '' && !Number.isNaN(Number(ev[k]))) ev[k] = Number(ev[k]);
  }
  return ev;
}

const answers = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
answers.on('line', (line) => process.stdout.write(line + '\n'));

const requests = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
requests.on('line', (line) => {
  if (line.trim() === '') return;
  let out = line;
  try {
    const req = JSON.parse(line);
    if (req.kind === 'fold' && Array.isArray(req.events)) {
      // Re-encoding through JSON.parse loses number spellings and lone-surrogate escapes nowhere
      // the fold reads them differently, except the one coerced member.
      if (req.events.some((e) => e && typeof e === 'object' && (typeof e.sequence === 'string' || typeof e.timestamp === 'string'))) {
        req.events = req.events.map(coerce);
        out = JSON.stringify(req);
      }
    }
  } catch (e) {
    // not JSON: let the fold behind answer it
  }
  child.stdin.write(out + '\n');
});
requests.on('close', () => child.stdin.end());
