/**
 * The prompts through a real MCP client (harness): listing, the text each one returns, and argument
 * completions from the sandbox lists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const PROMPTS = ['ugc_talking_video', 'product_ad', 'custom_avatar_video', 'template_video'];

async function promptText(name: string, args: Record<string, string>): Promise<string> {
  const r = await h.client.getPrompt({ name, arguments: args });
  return r.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');
}

async function complete(prompt: string, name: string, value: string, context?: Record<string, string>) {
  const r = await h.client.complete({
    ref: { type: 'ref/prompt', name: prompt },
    argument: { name, value },
    ...(context ? { context: { arguments: context } } : {}),
  });
  return r.completion.values;
}

describe('prompts/list', () => {
  it('lists every prompt with a title, a description and described arguments', async () => {
    const { prompts } = await h.client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual([...PROMPTS].sort());
    for (const p of prompts) {
      expect(p.title, p.name).toBeTruthy();
      expect(p.description, p.name).toBeTruthy();
      expect(p.arguments?.length, p.name).toBeGreaterThan(0);
      for (const a of p.arguments ?? []) expect(a.description, `${p.name}.${a.name}`).toBeTruthy();
    }
  });

  it('marks the arguments each workflow cannot do without as required', async () => {
    const { prompts } = await h.client.listPrompts();
    const required = Object.fromEntries(
      prompts.map((p) => [
        p.name,
        (p.arguments ?? [])
          .filter((a) => a.required)
          .map((a) => a.name)
          .sort(),
      ]),
    );
    expect(required).toEqual({
      ugc_talking_video: ['brief'],
      product_ad: ['brief', 'product_image_url'],
      custom_avatar_video: ['brief', 'portrait_url'],
      template_video: ['brief'],
    });
  });
});

describe('prompts/get', () => {
  /** Every prompt states the confirmation rule, the wait loop and the unknown-status rule. */
  const expectFlow = (text: string) => {
    expect(text).toContain('confirmation_token only after they agree');
    expect(text).toContain('show the user the cost');
    expect(text).toContain('wait_for_jobs');
    expect(text).toContain('status is unknown');
  };

  it('ugc_talking_video names the list and create tools, the voice id rule and the arguments', async () => {
    const text = await promptText('ugc_talking_video', {
      brief: 'sell a thermos',
      language: 'Spanish',
      gender: 'Male',
    });
    for (const tool of ['list_avatars', 'list_voices', 'create_talking_video']) expect(text).toContain(tool);
    expect(text).toContain('sell a thermos');
    expect(text).toContain('language "Spanish"');
    expect(text).toContain('gender "Male"');
    expect(text).toContain('not its "voiceId"');
    expectFlow(text);
  });

  it('product_ad without a kind offers the three routes; with one, only that route', async () => {
    const url = 'https://cdn.example.com/bottle.png';
    const all = await promptText('product_ad', { product_image_url: url, brief: 'summer sale' });
    for (const tool of [
      'create_product_video',
      'list_shoppable_packs',
      'create_shoppable_image',
      'create_shoppable_video',
      'list_voices',
    ]) {
      expect(all).toContain(tool);
    }
    expect(all).toContain(url);
    expect(all).toContain('not its "voiceId"');
    expectFlow(all);

    const image = await promptText('product_ad', {
      product_image_url: url,
      brief: 'summer sale',
      kind: 'shoppable_image',
      category: 'beauty',
    });
    expect(image).toContain('create_shoppable_image');
    expect(image).toContain('category "beauty"');
    expect(image).not.toContain('create_product_video');
    expectFlow(image);
  });

  it('product_ad refuses a kind outside its list', async () => {
    await expect(
      h.client.getPrompt({ name: 'product_ad', arguments: { product_image_url: 'x', brief: 'y', kind: 'poster' } }),
    ).rejects.toThrow();
  });

  it('custom_avatar_video chains the avatar id into a talking video, confirming both costs', async () => {
    const text = await promptText('custom_avatar_video', {
      portrait_url: 'https://cdn.example.com/me.png',
      voice_sample_url: 'https://cdn.example.com/me.mp3',
      brief: 'introduce our shop',
    });
    expect(text).toContain('create_custom_avatar');
    expect(text).toContain('https://cdn.example.com/me.png');
    expect(text).toContain('https://cdn.example.com/me.mp3');
    expect(text).toContain('avatar_id');
    expect(text).toContain('selected_voice_id');
    expect(text).toContain('create_talking_video');
    expect(text).toContain('not its "voiceId"');
    expect(text.match(/confirmation_token only after they agree/g)).toHaveLength(2);
    expectFlow(text);
  });

  it('template_video names list_templates, the field rules and create_template_video', async () => {
    const text = await promptText('template_video', { brief: 'launch week', category: 'social' });
    for (const tool of ['list_templates', 'create_template_video']) expect(text).toContain(tool);
    expect(text).toContain('category "social"');
    expect(text).toContain('max');
    expect(text).toContain('need a public http(s) URL');
    expectFlow(text);
    const chosen = await promptText('template_video', { brief: 'x', template_id: h.sim.data.templates[0]!.id });
    expect(chosen).toContain(h.sim.data.templates[0]!.id);
  });
});

describe('completion/complete for prompt arguments', () => {
  it('completes language from the live voice list, by case-insensitive prefix', async () => {
    const languages = [...new Set(h.sim.data.voices.map((v) => v.language).filter(Boolean))].sort();
    expect(await complete('ugc_talking_video', 'language', '')).toEqual(languages);
    expect(await complete('custom_avatar_video', 'language', 'sp')).toEqual(['Spanish']);
  });

  it('completes avatar gender from the live avatar list', async () => {
    const genders = [...new Set(h.sim.data.avatars.map((a) => a.gender).filter(Boolean))].sort();
    expect(await complete('ugc_talking_video', 'gender', '')).toEqual(genders);
  });

  it('completes template categories, and template ids within the chosen category', async () => {
    expect(await complete('template_video', 'category', '')).toEqual(h.sim.data.categories.map((c) => c.value));
    expect(await complete('template_video', 'template_id', '')).toEqual(h.sim.data.templates.map((t) => t.id));
    const events = h.sim.data.templates.filter((t) => t.category.includes('events')).map((t) => t.id);
    expect(events.length).toBeGreaterThan(0);
    expect(await complete('template_video', 'template_id', '', { category: 'events' })).toEqual(events);
  });

  it('completes shoppable categories from the packs and the ad kind from its fixed list', async () => {
    expect(await complete('product_ad', 'category', '')).toEqual(h.sim.data.packs.map((p) => p.value));
    expect(await complete('product_ad', 'kind', 'shop')).toEqual(['shoppable_image', 'shoppable_video']);
  });

  it('completes free-text arguments to nothing', async () => {
    expect(await complete('product_ad', 'brief', 'a')).toEqual([]);
  });
});
