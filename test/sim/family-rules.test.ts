/** The dedicated family body rules and sandbox prices, as pure functions. */
import { describe, expect, it } from 'vitest';
import { sandboxVendors } from '../../src/config.js';
import { familyModels, validateFamily } from '../../src/sim/models/family.js';
import { SimHttpError } from '../../src/sim/types.js';

const v = sandboxVendors({});
const ok = { model: 'seedance-2.5', prompt: 'a cat', duration: 5, aspect_ratio: '9:16', resolution: '720p' };

function msg(body: Record<string, unknown>): string {
  try {
    validateFamily(body, v);
    return 'ok';
  } catch (e) {
    if (e instanceof SimHttpError && e.status === 400) return e.message;
    throw e;
  }
}

describe('dedicated family rules', () => {
  it('names the three models after vendor C', () => {
    expect(familyModels(v)).toEqual(['seedance-2.5', 'seedance-2.0', 'seedance-2.0-fast']);
    expect(familyModels(sandboxVendors({ C: 'acme' }))[0]).toBe('acme-2.5');
  });

  it('prices by model, duration and resolution, and maps the upscale video_type', () => {
    const a = validateFamily(ok, v);
    expect(a).toMatchObject({ credits: 50, videoType: 'seedance_25_video', width: 720, height: 1280 });
    expect(validateFamily({ ...ok, duration: 10, resolution: '1080p' }, v).credits).toBe(200);
    const b = validateFamily({ ...ok, model: 'seedance-2.0-fast', aspect_ratio: '16:9', resolution: '480p' }, v);
    expect(b).toMatchObject({ credits: 10, videoType: 'seedance_2_video', width: 853, height: 480 });
    expect(validateFamily({ ...ok, model: 'seedance-2.0' }, v).videoType).toBe('seedance_2_video');
  });

  it('rejects a params envelope and each bad field', () => {
    expect(msg({ ...ok, params: { prompt: 'x' } })).toMatch(/^params:/);
    expect(msg({ ...ok, model: 'seedance-1-5-pro' })).toMatch(/^model: must be one of/);
    expect(msg({ ...ok, prompt: undefined })).toMatch(/^prompt: is required/);
    expect(msg({ ...ok, duration: '5' })).toMatch(/^duration: must be an integer/);
    expect(msg({ ...ok, duration: 5.5 })).toMatch(/^duration: must be an integer/);
    expect(msg({ ...ok, duration: 7 })).toMatch(/^duration: must be one of 5, 10/);
    expect(msg({ ...ok, resolution: '4k' })).toMatch(/^resolution:/);
    expect(msg({ ...ok, aspect_ratio: '4:5' })).toMatch(/^aspect_ratio:/);
    expect(msg({ ...ok, generate_audio: 'yes' })).toMatch(/^generate_audio:/);
    expect(msg({ ...ok, user_id: 'u' })).toMatch(/^user_id:/);
  });

  it('accepts webhook_url (it is simply not forwarded)', () => {
    expect(msg({ ...ok, webhook_url: 'https://hooks.example.com/x' })).toBe('ok');
  });
});
