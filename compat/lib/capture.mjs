/**
 * Everything a framework prints in this process: console.*, direct writes to stdout/stderr and process
 * warnings. Installed before the framework is imported; the suite itself reports through `report`, which
 * bypasses the capture. A line that names a tool or speaks of a schema is a conversion warning (fails the
 * client); every other line is kept verbatim as a note.
 */
import { format } from 'node:util';

export const captured = [];
const rawStderrWrite = process.stderr.write.bind(process.stderr);

export function report(line) {
  rawStderrWrite(`${line}\n`);
}

export function installCapture() {
  for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace']) {
    console[level] = (...args) => captured.push({ via: `console.${level}`, text: format(...args) });
  }
  for (const stream of ['stdout', 'stderr']) {
    process[stream].write = (chunk, ...rest) => {
      captured.push({ via: stream, text: String(chunk).replace(/\n$/, '') });
      const cb = rest.find((r) => typeof r === 'function');
      if (cb) cb();
      return true;
    };
  }
  process.on('warning', (w) => captured.push({ via: 'process.warning', text: `${w.name}: ${w.message}` }));
}

/**
 * Captured lines split into conversion warnings (naming a tool or speaking of a schema) and other notes
 * (identical notes once, with a count). A client may have attributed a warning to the tools it is about
 * (`entry.tools`, `entry.detail`) when the framework's text names none.
 */
export function classify(toolNames) {
  const warnings = [];
  const notes = new Map();
  for (const c of captured) {
    const text = c.text.trim();
    if (!text) continue;
    const named = toolNames.filter((n) => new RegExp(`\\b${n}\\b`).test(text));
    if (named.length > 0 || c.tools || /schema|strict|unsupported|convert/i.test(text)) {
      warnings.push({ via: c.via, text, tools: c.tools ?? named, ...(c.detail ? { detail: c.detail } : {}) });
    } else {
      const line = `[${c.via}] ${text}`;
      notes.set(line, (notes.get(line) ?? 0) + 1);
    }
  }
  return { warnings, notes: [...notes].map(([line, n]) => (n > 1 ? `${line} (x${n})` : line)) };
}
