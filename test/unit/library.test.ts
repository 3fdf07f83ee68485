import { describe, expect, it } from 'vitest';
import type { Template } from '../../src/client/schemas.js';
import { UserInputError } from '../../src/errors.js';
import { checkTemplateFields, compactTemplate } from '../../tools/_shared/library.js';

const template: Template = {
  id: '5d0c6a4e-1f7b-4c2a-9a61-3b1f2e0c9d11',
  title: 'Product spotlight',
  credit: '100',
  category: ['ads'],
  require_fields: {
    headline: { type: 'input', label: 'Headline', max: 5 },
    body: { type: 'textarea', label: 'Body', max: undefined },
    photo: { type: 'image', label: 'Photo', max: undefined },
    tone: { type: 'select', label: 'Tone', max: undefined },
  },
};
const ok = {
  headline: 'Hi 👋',
  body: 'text: with a colon',
  photo: 'https://cdn.example.com/p.png',
  tone: 'https://cdn.example.com/t.png',
};
const urls: string[] = [];
const check = (field: string, value: string) => {
  urls.push(field);
  if (!value.startsWith('https://cdn.')) throw new UserInputError(field, 'not a public URL');
};

async function rejection(fields: Record<string, string>): Promise<UserInputError> {
  const err = await checkTemplateFields(template, fields, check).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UserInputError);
  return err as UserInputError;
}

describe('checkTemplateFields', () => {
  it('accepts a complete set at the max length, URL-checking non-text fields only', async () => {
    urls.length = 0;
    await checkTemplateFields(template, ok, check);
    expect(urls).toEqual(['fields.photo', 'fields.tone']);
  });

  it('names a missing or blank required field and the template', async () => {
    const { body: _, ...missing } = ok;
    expect((await rejection(missing)).message).toBe('fields.body: required by template "Product spotlight"');
    expect((await rejection({ ...ok, tone: '  ' })).field).toBe('fields.tone');
  });

  it('rejects keys the template does not have', async () => {
    const err = await rejection({ ...ok, subtitle: 'x' });
    expect(err.field).toBe('fields.subtitle');
    expect(err.rule).toMatch(/^not a field of this template/);
    expect(err.rule).toContain('headline, body, photo, tone');
  });

  it('enforces max, counting UTF-16 units (never fewer than the code points)', async () => {
    const err = await rejection({ ...ok, headline: 'Hello!' });
    expect(err.message).toBe('fields.headline: at most 5 characters (got 6)');
    expect((await rejection({ ...ok, headline: 'Hi 👋!' })).field).toBe('fields.headline');
  });

  it('passes image fields through the URL check', async () => {
    expect((await rejection({ ...ok, photo: 'http://10.0.0.1/p.png' })).field).toBe('fields.photo');
  });

  it('treats a field type the spec does not show as a media URL, and says why', async () => {
    const err = await rejection({ ...ok, tone: 'fun' });
    expect(err.field).toBe('fields.tone');
    expect(err.rule).toBe(
      'field type "select" is not one the spec shows, so its value is treated as a media URL: not a public URL',
    );
  });

  it.each([
    ['headline', 'C:\\x'],
    ['body', 'http:/169.254.169.254/'],
    ['body', ' HTTP:10.0.0.1/x'],
    ['body', 'ht\ttp://10.0.0.1/'],
    ['body', 'data:image/png;base64,AAAA'],
  ])('URL-checks a text field (%s) whose value is URL-shaped: %j', async (field, value) => {
    expect((await rejection({ ...ok, [field]: value })).field).toBe(`fields.${field}`);
  });
});

describe('compactTemplate', () => {
  it('keeps id, title, credit, category and the field specs only', () => {
    const c = compactTemplate({ ...template, thumbnail: 'https://x/y.png' } as Template);
    expect(c).toEqual({
      id: template.id,
      title: 'Product spotlight',
      credit: '100',
      category: ['ads'],
      fields: {
        headline: { type: 'input', label: 'Headline', max: 5 },
        body: { type: 'textarea', label: 'Body' },
        photo: { type: 'image', label: 'Photo' },
        tone: { type: 'select', label: 'Tone' },
      },
    });
  });
});
