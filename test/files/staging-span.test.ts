/**
 * The staging step as a span (issue 30 item 1): a local file named by path is staged right before the POST, in a
 * `genplat.staging` span (its field only) under the tool span, ended before the platform request starts. The span
 * never names the file's path or its bytes. stdio `--sandbox` with its loopback staging, as test/files/sandbox-files.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, parseCli } from '../../src/config.js';
import { type SandboxStaging, startSandboxStaging } from '../../src/files/sandbox-staging.js';
import { createLogger } from '../../src/log.js';
import { type SandboxSimulator, startSandbox } from '../../src/sim/sandbox.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { startTracing, stopTracing } from '../../src/telemetry/traces.js';
import { type Harness, startHarness, text } from '../helpers/harness.js';
import { wav } from './media-bytes.js';

const quiet = createLogger('error', () => {});
const exporter = new InMemorySpanExporter();
let dir: string;
let sim: SandboxSimulator;
let store: Store;
let staging: SandboxStaging;
let h: Harness;

beforeAll(async () => {
  await startTracing({ exporters: [] }, { exporter });
  dir = await mkdtemp(join(tmpdir(), 'genplat-staging-span-'));
  await mkdir(join(dir, 'inputs'));
  await writeFile(join(dir, 'inputs', 'voice.wav'), wav(20_000));
  const config = loadConfig(parseCli(['--sandbox']), {
    GENPLAT_STATE_DIR: join(dir, 'state'),
    GENPLAT_INPUT_DIRS: join(dir, 'inputs'),
  });
  sim = await startSandbox(config, quiet);
  store = await openSqliteStore(config.stateDir);
  const started = await startSandboxStaging({ config, jobs: store, sim, log: quiet });
  if (!started) throw new Error('no sandbox staging');
  staging = started;
  h = await startHarness({ sim, store: async () => store, files: staging.files, config: { files: config.files } });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await staging?.close();
  await sim?.close();
  await stopTracing();
  await rm(dir, { recursive: true, force: true });
});

describe('staging span', () => {
  it('stages under the tool span, before the POST, naming the field and never the path', async () => {
    exporter.reset();
    const r = await h.call('create_talking_video', {
      avatar_id: 'av_ava',
      voice_script: 'Staged from a file.',
      voice_url: join(dir, 'inputs', 'voice.wav'),
    });
    expect(r.isError, text(r)).toBeFalsy();
    const spans = exporter.getFinishedSpans();
    const tool = spans.find((s) => s.name === 'tools/call create_talking_video');
    const staged = spans.filter((s) => s.name === 'genplat.staging');
    const post = spans.find((s) => s.name === 'POST /video/generate');
    expect(staged).toHaveLength(1);
    expect(staged[0]!.attributes).toEqual({ 'genplat.staging.field': 'voice_url' });
    expect(staged[0]!.parentSpanContext?.spanId).toBe(tool?.spanContext().spanId);
    expect(post?.parentSpanContext?.spanId).toBe(tool?.spanContext().spanId);
    // Ordered, not timed: OpenTelemetry JS starts each span at Date.now() (whole milliseconds) and ends it a monotonic
    // duration later, so two spans' times compare only to within a millisecond (a staging span once "ended" 64 µs after
    // the POST's start). In microseconds: nanoseconds since 1970 exceed a double's exact integers.
    const us = (t: [number, number]) => t[0] * 1e6 + t[1] / 1e3;
    expect(us(staged[0]!.endTime)).toBeLessThanOrEqual(us(post!.startTime) + 1000);
    expect(us(staged[0]!.startTime)).toBeLessThanOrEqual(us(post!.startTime));
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain(dir);
  });
});
