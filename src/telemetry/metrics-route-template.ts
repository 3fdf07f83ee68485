/**
 * A platform path as a metric label: the route, never an id (a label per job would grow without bound).
 * A segment after `status` (the one route with an id in its path, src/client/areas/enterprise.ts) and segments
 * that look like ids (a digit, 24+ characters, anything percent-encoded) become `{id}`:
 * `/enterprise/status/7f3c…` → `/enterprise/status/{id}`; route words (`/video/generate`) stay. No query ever.
 */
export function routeTemplate(path: string): string {
  const segs = (path.split('?')[0] ?? '').split('/');
  return segs
    .map((seg, i) =>
      seg !== '' && (segs[i - 1] === 'status' || seg.length >= 24 || seg.includes('%') || /\d/.test(seg))
        ? '{id}'
        : seg,
    )
    .join('/');
}
