/**
 * One valid argument set per tool, against a freshly started simulator (its seeded catalog), and for each
 * billable tool the POST route that starts its job. The invariant suites (test/invariants) iterate
 * ALL_TOOLS and look the tool up here, so a tool that lands without an example fails loudly
 * ("add an example for X") instead of being skipped silently.
 *
 * `args(sim, n)` varies one free-text field with `n`, so two cells of a suite sharing a ledger never look
 * like duplicates of each other (the duplicate guard would refuse the second, correctly).
 */
import type { ToolSpec } from '../../src/define-tool.js';
import type { Simulator } from '../../src/sim/index.js';
import { ALL_TOOLS } from '../../tools/index.js';

type Args = Record<string, unknown>;

export interface Example {
  /** Valid arguments for this tool against a fresh simulator; `n` makes them unique. */
  args(sim: Simulator, n?: number): Args;
}

export interface BillableExample extends Example {
  /**
   * The path (relative to the API prefix, as the sim log records it) of the one POST that starts the
   * job. Free POSTs a tool may make first (the upscale quote) are not this route.
   */
  route(sim: Simulator): string;
  /** Whether the job has a status endpoint (custom avatars come back complete, with nothing to poll). */
  pollable: boolean;
}

const vendor = (sim: Simulator, letter: keyof Simulator['vendors']): string => {
  const name = sim.vendors[letter];
  if (!name) throw new Error(`the simulator has no vendor name for <vendor${letter}>`);
  return name;
};

const firstVoice = (sim: Simulator) => {
  const v = sim.data.voices.find((x) => !x.isCustom);
  if (!v) throw new Error('the simulator seed has no stock voice');
  return v;
};

const template = (sim: Simulator, title: string) => {
  const t = sim.data.templates.find((x) => x.title === title);
  if (!t) throw new Error(`the simulator seed has no template "${title}"`);
  return t;
};

export const BILLABLE_EXAMPLES: Record<string, BillableExample> = {
  // A one-item campaign (issue 21): its one POST is its item's; the handle is `campaign:<id>`.
  create_campaign: {
    args: (_sim, n = 0) => ({
      items: [
        { tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: `Campaign take ${n}.` } },
      ],
    }),
    route: () => '/video/generate',
    pollable: true,
  },
  animate_gesture: {
    args: (_sim, n = 0) => ({ prompt: `waves at the camera, take ${n}`, image_url: 'https://cdn.example.com/p.png' }),
    route: () => '/gestures/generate',
    pollable: true,
  },
  create_custom_avatar: {
    // The voice sample varies: a URL's file name is part of the arguments, so n makes a new avatar.
    args: (_sim, n = 0) => ({
      image: 'https://cdn.example.com/portrait.png',
      voice: `https://cdn.example.com/voice-${n}.mp3`,
    }),
    route: () => '/custom-avatar/generate',
    pollable: false,
  },
  create_family_video: {
    args: (sim, n = 0) => ({
      model: `${vendor(sim, 'C')}-2.5`,
      prompt: `a drone shot over a lake, take ${n}`,
      duration: 5,
    }),
    route: (sim) => `/${vendor(sim, 'C')}/generate`,
    pollable: true,
  },
  create_product_video: {
    args: (sim, n = 0) => ({
      engine: 'v2',
      image_url: 'https://cdn.example.com/bottle.png',
      script: `This bottle keeps coffee hot, take ${n}.`,
      voice_id: firstVoice(sim).id,
    }),
    route: (sim) => `/product-in-hand/${vendor(sim, 'L')}-v2/generate`,
    pollable: true,
  },
  create_shoppable_image: {
    args: (_sim, n = 0) => ({
      category: 'beauty',
      format: 'before_after',
      image_url: 'https://cdn.example.com/serum.png',
      context: `clean bathroom shelf, take ${n}`,
    }),
    route: () => '/shopable/images',
    pollable: true,
  },
  create_shoppable_video: {
    args: (_sim, n = 0) => ({
      category: 'gadgets',
      format: 'unboxing',
      image_urls: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
      context: `desk setup, take ${n}`,
    }),
    route: () => '/shopable/videos',
    pollable: true,
  },
  create_talking_video: {
    args: (_sim, n = 0) => ({ avatar_id: 'av_marcus', voice_script: `Meet the bottle, take ${n}.` }),
    route: () => '/video/generate',
    pollable: true,
  },
  create_template_video: {
    args: (sim, n = 0) => ({
      template_id: template(sim, 'Product spotlight').id,
      fields: { product_name: `Thermo bottle ${n}`, product_image: 'https://cdn.example.com/bottle.png' },
    }),
    route: () => '/content-library/generate',
    pollable: true,
  },
  run_model: {
    // A model with a published parameter schema, so its params are checked locally too.
    args: (sim, n = 0) => ({
      model: `${vendor(sim, 'D')}-video-t2v`,
      params: { prompt: `a cat surfing a wave, take ${n}`, duration: 10 },
    }),
    route: () => '/enterprise/generate',
    pollable: true,
  },
  upscale_video: {
    // The seeded owned video that passes every upscale rule. Only one attempt per video may run, so suites
    // give each upscale case its own simulator and ledger; `n` cannot vary the video.
    args: () => ({
      video_id: 'vid_seed_ok',
      project_id: 'proj_seed_ok',
      video_type: 'video',
      model_family: 'precision',
      model: 'sandbox-precision-1',
      target_resolution: '2160p',
    }),
    route: () => '/upscale/generate',
    pollable: true,
  },
};

/** Read tools: arguments that succeed (or fail only for platform reasons) against a fresh simulator. */
export const READ_EXAMPLES: Record<string, Example> = {
  get_job: { args: () => ({ kind: 'actor_video', id: 'job_does_not_exist' }) },
  list_avatars: { args: () => ({ gender: 'Female' }) },
  list_jobs: { args: () => ({ limit: 5 }) },
  list_models: { args: () => ({ media: 'image' }) },
  list_shoppable_packs: { args: () => ({}) },
  list_template_categories: { args: () => ({}) },
  list_templates: { args: () => ({ category: 'events' }) },
  list_voices: { args: () => ({ language: 'English' }) },
  quote_upscale: { args: (sim) => BILLABLE_EXAMPLES.upscale_video!.args(sim) },
  // On stdio it refuses (local paths are the way there); over HTTP it records a pending upload.
  request_upload: { args: () => ({ kind: 'image', filename: 'portrait.png' }) },
  save_outputs: { args: () => ({ handle: 'actor_video:job_does_not_exist' }) },
  wait_for_jobs: { args: () => ({ handles: ['actor_video:job_does_not_exist'], max_wait_s: 1 }) },
  // Not a read, but free: refused (no such approval; over stdio no second person can decide), nothing sent.
  decide_approval: { args: () => ({ approval: 'approval:00000000-0000-4000-8000-000000000000', decision: 'decline' }) },
};

/**
 * Every single-call billable tool in the registry (tools that land later are covered automatically). Not
 * create_campaign: its POSTs go out after the call answers (one per item, by the campaign sender), so the
 * suites that expect the one POST inside the call do not apply; test/campaigns/ proves the same invariants
 * for it (faults, charge ≤ quote, body = consented request, kill -9, fleet).
 */
export function billableTools(): ToolSpec[] {
  return ALL_TOOLS.filter((t) => t.billable !== undefined && t.billable.bundle === undefined);
}

/** @throws Error naming the file to edit when a billable tool has no example. */
export function billableExample(tool: string): BillableExample {
  const ex = BILLABLE_EXAMPLES[tool];
  if (!ex) throw new Error(`billable tool ${tool} has no example: add one to test/helpers/examples.ts`);
  return ex;
}

/** @throws Error naming the file to edit when a tool has no example. */
export function exampleFor(tool: string): Example {
  const ex = BILLABLE_EXAMPLES[tool] ?? READ_EXAMPLES[tool];
  if (!ex) throw new Error(`tool ${tool} has no example: add one to test/helpers/examples.ts`);
  return ex;
}

/** Escapes a literal path for a RegExp. */
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every job-starting POST route of the registry's billable tools, as one anchored RegExp. */
export function billableRoutes(sim: Simulator): RegExp {
  const routes = billableTools().map((t) => literal(billableExample(t.name).route(sim)));
  return new RegExp(`^(?:${routes.join('|')})$`);
}

/** POSTs to job-starting routes in the sim log (any billable tool). */
export function billablePosts(sim: Simulator): number {
  const re = billableRoutes(sim);
  return sim.log.entries().filter((e) => e.method === 'POST' && re.test(e.path)).length;
}
