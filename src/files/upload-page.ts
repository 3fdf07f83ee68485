/**
 * The upload page behind a `request_upload` link: one self-contained HTML document (no external script, style,
 * font or image) under a strict CSP whose only script and style are this response's, by nonce. Drag-and-drop or
 * a file picker; the type and size are checked here before a byte is sent (the server checks both again from the
 * bytes: upload-route.ts); the file is PUT as a stream with progress; the answer's `upload:<id>` is shown to copy.
 */
import { randomBytes } from 'node:crypto';
import type { MediaKind } from './media-ref.js';

export interface UploadPage {
  html: string;
  csp: string;
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** A page that only says why the link cannot be used (used, expired, unknown). */
export function closedPage(message: string): UploadPage {
  const nonce = randomBytes(16).toString('base64');
  return {
    csp: `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Upload link</title><style nonce="${nonce}">body{font:16px system-ui,sans-serif;margin:3rem auto;max-width:36rem;padding:0 1rem}</style></head><body><h1>Upload link</h1><p id="closed">${esc(message)}</p></body></html>`,
  };
}

export function uploadPage(o: { kind: MediaKind; maxBytes: number; expiresAt: number; filename: string }): UploadPage {
  const nonce = randomBytes(16).toString('base64');
  const mib = Math.floor(o.maxBytes / (1024 * 1024));
  const cfg = JSON.stringify({ kind: o.kind, maxBytes: o.maxBytes, expiresAt: o.expiresAt }).replace(/</g, '\\u003c');
  return {
    // connect-src 'self': the page talks only to the URL it came from.
    csp: `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    html: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Upload ${esc(o.kind)} for your assistant</title>
<style nonce="${nonce}">
body{font:16px system-ui,sans-serif;margin:2rem auto;max-width:36rem;padding:0 1rem;color:#222}
#drop{border:2px dashed #888;border-radius:12px;padding:2.5rem 1rem;text-align:center;cursor:pointer}
#drop.over{border-color:#06c;background:#eef5ff}
progress{width:100%;margin-top:1rem}
#error{color:#b00020}
#done code{font-size:1.1rem;background:#f3f3f3;padding:.2rem .4rem;border-radius:4px;user-select:all}
[hidden]{display:none}
</style></head><body>
<h1>Upload ${esc(o.kind)}</h1>
<p>One ${esc(o.kind)} file, at most ${mib} MiB. This link works once and until ${esc(new Date(o.expiresAt).toISOString().slice(11, 16))} UTC.</p>
<div id="drop" tabindex="0" role="button">Drop the file here, or click to choose it
<input id="file" type="file" accept="${esc(o.kind)}/*" hidden></div>
<progress id="progress" max="100" value="0" hidden></progress>
<p id="error" role="alert"></p>
<div id="done" hidden><p>Uploaded. Give this back to your assistant:</p><p><code id="reference"></code> <button id="copy" type="button">Copy</button></p></div>
<script nonce="${nonce}">
const cfg = ${cfg};
const drop = document.getElementById('drop'), input = document.getElementById('file');
const bar = document.getElementById('progress'), error = document.getElementById('error');
function fail(msg) { error.textContent = msg; bar.hidden = true; }
function send(file) {
  error.textContent = '';
  if (!file) return;
  if (!file.type.startsWith(cfg.kind + '/')) return fail('This is not ' + cfg.kind + ' (' + (file.type || 'unknown type') + '); nothing was sent.');
  if (file.size > cfg.maxBytes) return fail('This file is larger than ' + Math.floor(cfg.maxBytes / 1048576) + ' MiB; nothing was sent.');
  if (file.size === 0) return fail('This file is empty; nothing was sent.');
  const xhr = new XMLHttpRequest();
  xhr.open('PUT', location.pathname);
  xhr.setRequestHeader('content-type', file.type);
  xhr.setRequestHeader('x-filename', encodeURIComponent(file.name));
  bar.hidden = false; bar.value = 0;
  xhr.upload.onprogress = (e) => { if (e.lengthComputable) bar.value = Math.round((e.loaded / e.total) * 100); };
  xhr.onerror = () => fail('The upload broke off; reload the page to try again if the link is still valid.');
  xhr.onload = () => {
    let body = {};
    try { body = JSON.parse(xhr.responseText); } catch {}
    if (xhr.status !== 200) return fail(body.error || ('Refused (' + xhr.status + ').'));
    bar.value = 100;
    drop.hidden = true;
    document.getElementById('reference').textContent = body.reference;
    document.getElementById('done').hidden = false;
  };
  xhr.send(file);
}
drop.addEventListener('click', () => input.click());
drop.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') input.click(); });
input.addEventListener('change', () => send(input.files[0]));
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => { e.preventDefault(); drop.classList.remove('over'); send(e.dataTransfer.files[0]); });
document.getElementById('copy').addEventListener('click', () => navigator.clipboard && navigator.clipboard.writeText(document.getElementById('reference').textContent));
</script></body></html>`,
  };
}
