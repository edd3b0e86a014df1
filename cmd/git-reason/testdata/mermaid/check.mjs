// Reads [{name, text}] as JSON on stdin and parses each text with
// mermaid.parse, the parser a forge's renderer runs. Prints one line per
// diagram that does not parse as a flowchart and exits 1 if there is one.
// Mermaid reaches for a DOM when it loads (its sanitizer), so a jsdom
// window stands in for the browser's.
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });

let input = '';
for await (const chunk of process.stdin) input += chunk;
const diagrams = JSON.parse(input);
let bad = 0;
for (const d of diagrams) {
  try {
    const res = await mermaid.parse(d.text);
    if (!res || res.diagramType !== 'flowchart-v2') {
      throw new Error(`not a flowchart: ${res && res.diagramType}`);
    }
  } catch (e) {
    bad++;
    console.log(`${d.name}: ${String(e.message || e).split('\n').join(' / ')}`);
  }
}
const version = JSON.parse(readFileSync(new URL('./node_modules/mermaid/package.json', import.meta.url))).version;
console.log(`checked ${diagrams.length} diagram(s) with mermaid ${version}: ${bad} failed`);
process.exit(bad > 0 ? 1 : 0);
