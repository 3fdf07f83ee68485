import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runSimulatorCli } from '../../src/sim/cli.js';
import { waitFor } from './helpers.js';

describe('sim CLI', () => {
  it('prints the base URL then the key on stdout, logs to stderr, stops on SIGTERM', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const signals = new EventEmitter();
    const sim = await runSimulatorCli({ port: 0, signals, stdout: (l) => out.push(l), stderr: (l) => err.push(l) });
    try {
      expect(out[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
      expect(out[1]).toMatch(/^sk-sandbox-/);
      expect(out).toHaveLength(2);
      const res = await fetch(`${out[0]}/video/avatars`, { headers: { 'x-api-key': out[1]! } });
      expect(res.status).toBe(200);
      await waitFor(async () => (err.some((l) => l.includes('GET /video/avatars -> 200')) ? true : undefined), 'log');
      expect(err.join('\n')).not.toContain(out[1]);
      signals.emit('SIGTERM');
      await waitFor(async () => (err.some((l) => l.includes('stopped')) ? true : undefined), 'stop');
      await expect(fetch(`${out[0]}/video/avatars`)).rejects.toThrow();
    } finally {
      await sim.close();
    }
  });

  it('writes to process.stdout by default', async () => {
    const writes: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => {
      writes.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    let sim: Awaited<ReturnType<typeof runSimulatorCli>> | undefined;
    try {
      sim = await runSimulatorCli({ signals: new EventEmitter(), stderr: () => {} });
    } finally {
      process.stdout.write = original;
    }
    await sim.close();
    expect(writes.join('').split('\n').slice(0, 2)).toEqual([sim.baseUrl, sim.apiKey]);
  });
});
