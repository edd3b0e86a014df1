// Parses Mermaid diagrams with mermaid.parse, the parser a forge's renderer
// runs. Mermaid reaches for a DOM when it loads (its sanitizer), so a jsdom
// window stands in for the browser's.
//
// It reads requests on stdin, one a line: a JSON array of {name, text}.
// For each it writes one line, a JSON object {report, ok}: the report
// names each diagram that does not parse as a flowchart on a line of its
// own and ends with a count; ok is false if there is one. It exits at the
// end of its input, so that loading node and Mermaid (seconds of CPU) is
// paid once by a test process that checks diagrams several times.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { JSDOM } from 'jsdom';

// stdout carries the answers alone: anything Mermaid prints goes to stderr.
for (const k of ['log', 'info', 'debug']) console[k] = console.error;

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
const version = JSON.parse(readFileSync(new URL('./node_modules/mermaid/package.json', import.meta.url))).version;

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim() === '') continue;
  const diagrams = JSON.parse(line);
  const lines = [];
  for (const d of diagrams) {
    try {
      const res = await mermaid.parse(d.text);
      if (!res || res.diagramType !== 'flowchart-v2') {
        throw new Error(`not a flowchart: ${res && res.diagramType}`);
      }
    } catch (e) {
      lines.push(`${d.name}: ${String(e.message || e).split('\n').join(' / ')}`);
    }
  }
  lines.push(`checked ${diagrams.length} diagram(s) with mermaid ${version}: ${lines.length} failed`);
  process.stdout.write(JSON.stringify({ report: lines.join('\n') + '\n', ok: lines.length === 1 }) + '\n');
}
process.exit(0);
