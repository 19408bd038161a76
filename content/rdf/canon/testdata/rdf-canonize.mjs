// Canonicalizes every DIR/NNNN.in.nq with rdf-canonize (the reference RDFC-1.0 implementation in JavaScript) and
// writes DIR/NNNN.js.nq, for TestAgainstRdfCanonize. Usage: node rdf-canonize.mjs NODE_DIR DIR
// NODE_DIR holds node_modules/rdf-canonize (../shared/bench/setup.sh installs it into ~/.cache/ldhub-bench/node).
import {createRequire} from 'module';
import fs from 'fs';
import path from 'path';

const [nodeDir, dir] = process.argv.slice(2);
const canonize = createRequire(path.join(nodeDir, 'x.js'))('rdf-canonize');
for (const f of fs.readdirSync(dir).filter(f => f.endsWith('.in.nq'))) {
  const input = fs.readFileSync(path.join(dir, f), 'utf8');
  // maxWorkFactor 6: small inputs only, and the Go side has its own limit under test elsewhere.
  const out = await canonize.canonize(input, {algorithm: 'RDFC-1.0', inputFormat: 'application/n-quads', maxWorkFactor: 6});
  fs.writeFileSync(path.join(dir, f.replace('.in.nq', '.js.nq')), out);
}
