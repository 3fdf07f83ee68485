/**
 * The simulator's catalog: stock avatars and voices, content-library templates and categories, shoppable packs,
 * and the owned videos upscale tests start from. Ids are fixed so tests and the README can name them.
 */
import type { OwnedVideo, SimAvatar, SimData, SimPackCategory, SimTemplate, SimVoice } from './types.js';

type MediaUrl = (kind: 'png' | 'mp4' | 'mp3', name?: string) => string;

export const SANDBOX_CUSTOM_VOICE_ID = 'voice_custom_sandbox';

function avatar(
  media: MediaUrl,
  id: string,
  name: string,
  gender: string,
  skin: string,
  age_range: string,
  type: string,
  default_voice_id: string,
): SimAvatar {
  return {
    id,
    name,
    thumbnail: media('png', `thumb-${id}`),
    gender,
    skin,
    age_range,
    type,
    default_voice_id,
    _sim: true,
  };
}

function stockVoice(
  media: MediaUrl,
  id: string,
  name: string,
  language: string,
  gender: string,
  accent: string,
  country: string,
): SimVoice {
  return {
    id,
    name,
    language,
    gender,
    // Deliberately unlike `id`: the platform rejects a voiceId passed as voice_id.
    voiceId: `el_${id
      .replace(/^voice_/, '')
      .split('')
      .reverse()
      .join('')}_x9`,
    previewUrl: media('mp3', `preview-${id}`),
    templateUrl: media('mp4', `template-${id}`),
    thumbnail: media('png', `voice-${id}`),
    accent,
    country,
    isCustom: false,
    _sim: true,
  };
}

export function customVoice(media: MediaUrl, id: string, name: string): SimVoice {
  return {
    id,
    name,
    language: 'English',
    gender: '',
    voiceId: `cl_${id}_clone`,
    previewUrl: media('mp3', `preview-${id}`),
    accent: '',
    country: '',
    isCustom: true,
    _sim: true,
  };
}

function template(
  media: MediaUrl,
  id: string,
  title: string,
  credit: string,
  category: string[],
  require_fields: SimTemplate['require_fields'],
): SimTemplate {
  return { id, title, credit, category, require_fields, thumbnail: media('png', `template-${id}`), _sim: true };
}

const PACKS: SimPackCategory[] = [
  {
    value: 'beauty',
    label: 'Beauty & skincare',
    formats: ['product_showcase', 'before_after', 'lifestyle'],
    aspect_ratios: ['9:16', '1:1', '4:5'],
    durations: ['10', '15', '30'],
    credits: { image: '100 credits', video: '300 credits' },
    defaults: { format: 'product_showcase', aspect_ratio: '9:16', duration: '15' },
  },
  {
    value: 'fashion',
    label: 'Fashion & apparel',
    formats: ['lookbook', 'lifestyle'],
    aspect_ratios: ['9:16', '4:5'],
    durations: ['10', '15'],
    credits: { image: '150 credits', video: '400 credits' },
    defaults: { format: 'lookbook', aspect_ratio: '4:5', duration: '10' },
  },
  {
    value: 'gadgets',
    label: 'Gadgets & electronics',
    formats: ['unboxing', 'product_showcase'],
    aspect_ratios: ['16:9', '9:16', '1:1'],
    durations: ['15', '30'],
    credits: { image: '100 credits', video: '350 credits' },
    defaults: { format: 'unboxing', aspect_ratio: '16:9', duration: '15' },
  },
];

export function seedData(media: MediaUrl): SimData {
  const avatars = [
    avatar(media, 'av_ava', 'Ava', 'Female', 'light', '25-35', 'ugc', 'voice_en_rachel'),
    avatar(media, 'av_marcus', 'Marcus', 'Male', 'dark', '35-45', 'studio', 'voice_en_james'),
    avatar(media, 'av_lucia', 'Lucía', 'Female', 'medium', '18-25', 'ugc', 'voice_es_lucia'),
    // Some stock avatars carry empty descriptive fields, as on the live platform.
    avatar(media, 'av_jonas', 'Jonas', 'Male', '', '', '', 'voice_de_jonas'),
    avatar(media, 'av_claire', 'Claire', 'Female', 'light', '', 'studio', 'voice_fr_claire'),
    avatar(media, 'av_kenji', 'Kenji', 'Male', 'medium', '25-35', '', 'voice_en_james'),
  ];
  const voices = [
    stockVoice(media, 'voice_en_rachel', 'Rachel', 'English', 'Female', 'american', 'US'),
    stockVoice(media, 'voice_en_james', 'James', 'English', 'Male', 'british', 'GB'),
    stockVoice(media, 'voice_es_lucia', 'Lucía', 'Spanish', 'Female', 'castilian', 'ES'),
    stockVoice(media, 'voice_es_mateo', 'Mateo', 'Spanish', 'Male', 'mexican', 'MX'),
    stockVoice(media, 'voice_de_jonas', 'Jonas', 'German', 'Male', 'standard', 'DE'),
    stockVoice(media, 'voice_fr_claire', 'Claire', 'French', 'Female', 'parisian', 'FR'),
  ];
  // Template prices: two with their unit word, two bare (API units, as the spec writes enterprise prices: '3' is
  // 300 credits). The server quotes each at what the sandbox charges (src/sim/price-text.ts; issue 27).
  const templates = [
    template(media, '6f1c2a9e-3b7d-4c1a-9e55-0a1b2c3d4e01', 'Product spotlight', '200 credits', ['ecommerce', 'ads'], {
      product_name: { type: 'input', label: 'Product name', max: 40 },
      product_image: { type: 'image', label: 'Product image' },
    }),
    template(media, '6f1c2a9e-3b7d-4c1a-9e55-0a1b2c3d4e02', 'Testimonial story', '3', ['social'], {
      headline: { type: 'input', label: 'Headline' },
      story: { type: 'textarea', label: 'Customer story', max: 500 },
      portrait: { type: 'image', label: 'Customer photo' },
    }),
    template(media, '6f1c2a9e-3b7d-4c1a-9e55-0a1b2c3d4e03', 'Event teaser', '150 credits', ['social', 'events'], {
      title: { type: 'input', label: 'Event title', max: 60 },
      details: { type: 'textarea', label: 'Details' },
    }),
    template(media, '6f1c2a9e-3b7d-4c1a-9e55-0a1b2c3d4e04', 'Before / after', '2.5', ['ecommerce'], {
      before_image: { type: 'image', label: 'Before' },
      after_image: { type: 'image', label: 'After' },
      caption: { type: 'textarea', label: 'Caption', max: 120 },
    }),
  ];
  const categories = [
    { label: 'All', value: 'all' },
    { label: 'E-commerce', value: 'ecommerce' },
    { label: 'Ads', value: 'ads' },
    { label: 'Social', value: 'social' },
    { label: 'Events', value: 'events' },
  ];
  return {
    avatars,
    voices,
    templates,
    categories,
    packs: PACKS.map((p) => structuredClone(p)),
    customAvatars: new Map(),
    customVoices: new Map(),
  };
}

/** Seeded owned videos of the sandbox account: one fine source and one per upscale rejection rule. */
export function seedOwnedVideos(accountKey: string, media: MediaUrl): OwnedVideo[] {
  const v = (
    videoId: string,
    projectId: string,
    width: number,
    height: number,
    durationS: number,
    fps: number,
  ): OwnedVideo => ({
    videoId,
    projectId,
    videoType: 'video',
    accountKey,
    url: media('mp4', videoId),
    width,
    height,
    durationS,
    fps,
  });
  return [
    v('vid_seed_ok', 'proj_seed_ok', 720, 1280, 30, 30),
    // 400 s: over the 300 s source limit.
    v('vid_seed_long', 'proj_seed_long', 720, 1280, 400, 30),
    // 120 fps: over the 60 fps limit.
    v('vid_seed_fps', 'proj_seed_fps', 720, 1280, 30, 120),
    // Already 2160x3840: no upscale factor fits the output bounds.
    v('vid_seed_4k', 'proj_seed_4k', 2160, 3840, 30, 30),
  ];
}
