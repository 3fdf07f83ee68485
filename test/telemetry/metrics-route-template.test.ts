/**
 * Platform routes as metric labels (src/telemetry/metrics-route-template.ts): every path the client requests keeps
 * its route words, and an id in a path never becomes a label value.
 */
import { describe, expect, it } from 'vitest';
import { routeTemplate } from '../../src/telemetry/metrics-route-template.js';

describe('routeTemplate', () => {
  it('keeps route words and drops the query', () => {
    expect(routeTemplate('/video/generate')).toBe('/video/generate');
    expect(routeTemplate('/product-in-hand/status?id=abc123')).toBe('/product-in-hand/status');
    expect(routeTemplate('/shopable/images/status')).toBe('/shopable/images/status');
  });

  it('turns ids into {id}: after status, with a digit, long or percent-encoded', () => {
    expect(routeTemplate('/enterprise/status/req_7f3c9a')).toBe('/enterprise/status/{id}');
    expect(routeTemplate('/enterprise/status/abc')).toBe('/enterprise/status/{id}');
    expect(routeTemplate('/a/12/b')).toBe('/a/{id}/b');
    expect(routeTemplate(`/a/${'x'.repeat(24)}`)).toBe('/a/{id}');
    expect(routeTemplate('/a/b%2Fc')).toBe('/a/{id}');
  });
});
