import { describe, it } from 'vitest';
import { c15Pro } from '../../../tools/enterprise/models/c-1-5-pro.js';
import { c20I2v } from '../../../tools/enterprise/models/c-2-0-i2v.js';
import { imagineVideoR2v } from '../../../tools/enterprise/models/d-imagine-video-1-5-r2v.js';
import { dVideoT2v } from '../../../tools/enterprise/models/d-video-t2v.js';
import { eH3MaxVideo } from '../../../tools/enterprise/models/e-h3-max-3d-to-video.js';
import { omniFlashI2v } from '../../../tools/enterprise/models/h-omni-flash-1-1-i2v.js';
import { broll } from '../../../tools/enterprise/models/j-broll.js';
import { accepts, DATA_URI, IMG, PRIVATE, rejects, VID } from './helpers.js';

describe('<vendorH>-omni-flash-1-1-i2v', () => {
  const ok = { prompt: 'walk', image_url: IMG };
  it('accepts URLs and base64 data URIs for media', () => {
    accepts(omniFlashI2v, ok);
    accepts(omniFlashI2v, {
      prompt: 'x'.repeat(20_000),
      image_url: DATA_URI,
      end_image_url: DATA_URI,
      resolution: '4k',
      duration: 3,
      aspect_ratio: '9:16',
    });
    accepts(omniFlashI2v, { ...ok, duration: 10 });
  });
  it('rejects seed, negative_prompt, generate_audio and client prices', () => {
    rejects(omniFlashI2v, { ...ok, seed: 7 }, 'params.seed', /not accepted/);
    rejects(omniFlashI2v, { ...ok, negative_prompt: 'x' }, 'params.negative_prompt', /not accepted/);
    rejects(omniFlashI2v, { ...ok, generate_audio: false }, 'params.generate_audio', /not accepted/);
    rejects(omniFlashI2v, { ...ok, price: 1 }, 'params.price', /must not be sent/);
    rejects(omniFlashI2v, { ...ok, credits: 1 }, 'params.credits', /must not be sent/);
  });
  it('rejects each broken rule', () => {
    rejects(omniFlashI2v, { ...ok, prompt: '' }, 'params.prompt');
    rejects(omniFlashI2v, { ...ok, prompt: 'x'.repeat(20_001) }, 'params.prompt', /20000/);
    rejects(omniFlashI2v, { prompt: 'p' }, 'params.image_url', /required/);
    rejects(omniFlashI2v, { ...ok, image_url: PRIVATE }, 'params.image_url');
    rejects(omniFlashI2v, { ...ok, resolution: '480p' }, 'params.resolution', /one of/);
    rejects(omniFlashI2v, { ...ok, duration: 2 }, 'params.duration', /at least 3/);
    rejects(omniFlashI2v, { ...ok, duration: 11 }, 'params.duration', /at most 10/);
    rejects(omniFlashI2v, { ...ok, duration: 5.5 }, 'params.duration', /integer/);
    rejects(omniFlashI2v, { ...ok, duration: '5' }, 'params.duration', /integer/);
    rejects(omniFlashI2v, { ...ok, aspect_ratio: '1:1' }, 'params.aspect_ratio');
  });
});

describe('<vendorJ>-broll (strict)', () => {
  const ok = { prompt: 'city', image_url: IMG };
  it('accepts valid params', () => accepts(broll, ok));
  it('rejects each broken rule', () => {
    rejects(broll, { ...ok, duration: 5 }, 'params.duration', /strict/);
    rejects(broll, { ...ok, prompt: '' }, 'params.prompt');
    rejects(broll, { ...ok, prompt: 'x'.repeat(2001) }, 'params.prompt');
    rejects(broll, { prompt: 'p' }, 'params.image_url', /required/);
    rejects(broll, { ...ok, image_url: DATA_URI }, 'params.image_url');
  });
});

describe('<vendorC>-1-5-pro (strict)', () => {
  const ok = { prompt: 'scene' };
  it('accepts valid params; image_url is optional; duration only 12', () => {
    accepts(c15Pro, ok);
    accepts(c15Pro, { ...ok, image_url: IMG, aspect_ratio: '21:9', duration: 12 });
  });
  it('rejects each broken rule', () => {
    rejects(c15Pro, { ...ok, resolution: '720p' }, 'params.resolution', /strict/);
    rejects(c15Pro, { ...ok, duration: 10 }, 'params.duration', /12/);
    rejects(c15Pro, { ...ok, duration: '12' }, 'params.duration', /12/);
    rejects(c15Pro, { ...ok, aspect_ratio: '2:3' }, 'params.aspect_ratio');
    rejects(c15Pro, { ...ok, prompt: 'x'.repeat(2001) }, 'params.prompt');
    rejects(c15Pro, { ...ok, image_url: PRIVATE }, 'params.image_url');
  });
});

describe('<vendorD>-imagine-video-1-5-r2v', () => {
  const ok = { prompt: '<IMAGE_0> dances', reference_image_urls: [IMG, IMG] };
  it('accepts valid params (repeats allowed)', () => {
    accepts(imagineVideoR2v, {
      ...ok,
      duration: 6,
      resolution: '720p',
      aspect_ratio: '16:9',
      enable_safety_checker: true,
    });
  });
  it('rejects blank prompts, string or fractional durations, missing references', () => {
    rejects(imagineVideoR2v, { ...ok, prompt: '   ' }, 'params.prompt', /blank/);
    rejects(imagineVideoR2v, { ...ok, duration: 5.5 }, 'params.duration', /integer/);
    rejects(imagineVideoR2v, { ...ok, duration: '5' }, 'params.duration', /integer/);
    rejects(imagineVideoR2v, { prompt: 'p' }, 'params.reference_image_urls', /required/);
    rejects(imagineVideoR2v, { ...ok, reference_image_urls: [] }, 'params.reference_image_urls');
    rejects(imagineVideoR2v, { ...ok, enable_safety_checker: 'off' }, 'params.enable_safety_checker');
  });
});

describe('<vendorC>-2-0-i2v', () => {
  const ok = { prompt: 'p', image_url: IMG };
  it('accepts duration as a string or a number', () => {
    accepts(c20I2v, { ...ok, duration: '5' });
    accepts(c20I2v, { ...ok, duration: 5, generate_audio: true, end_image_url: IMG, resolution: '1080p' });
  });
  it('rejects each broken rule', () => {
    rejects(c20I2v, { ...ok, duration: true }, 'params.duration');
    rejects(c20I2v, { ...ok, generate_audio: 'yes' }, 'params.generate_audio');
    rejects(c20I2v, { prompt: 'p' }, 'params.image_url', /required/);
    rejects(c20I2v, { ...ok, end_image_url: DATA_URI }, 'params.end_image_url');
  });
});

describe('<vendorE>-h3-max-3d-to-video', () => {
  it('needs video_url; the rest optional', () => {
    accepts(eH3MaxVideo, { video_url: VID });
    accepts(eH3MaxVideo, {
      video_url: VID,
      prompt: 'p',
      reference_image_urls: [IMG],
      max_generated_reference_images: 0,
    });
    rejects(eH3MaxVideo, { prompt: 'p' }, 'params.video_url', /required/);
    rejects(
      eH3MaxVideo,
      { video_url: VID, max_generated_reference_images: 1.5 },
      'params.max_generated_reference_images',
    );
    rejects(eH3MaxVideo, { video_url: VID, reference_image_urls: [PRIVATE] }, 'params.reference_image_urls[0]');
  });
});

describe('<vendorD>-video-t2v', () => {
  it('accepts the priced durations 10 and 15 only', () => {
    accepts(dVideoT2v, { prompt: 'p' });
    accepts(dVideoT2v, { prompt: 'p', duration: 10, aspect_ratio: '16:9' });
    accepts(dVideoT2v, { prompt: 'p', duration: 15 });
    rejects(dVideoT2v, { prompt: 'p', duration: 12 }, 'params.duration', /10 or 15/);
    rejects(dVideoT2v, { prompt: 'p', duration: '10' }, 'params.duration', /10 or 15/);
    rejects(dVideoT2v, { duration: 10 }, 'params.prompt', /required/);
  });
});
