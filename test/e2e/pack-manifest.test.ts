/**
 * The distribution metadata agrees with the code: manifest.json (MCP Bundle) and server.json (MCP registry)
 * carry the package version, list exactly the tools we register, and map only settings config.ts reads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOCS } from '../../src/config-docs.js';
import { listedWithoutPolicy } from '../helpers/listed-tools.js';

const ROOT = join(import.meta.dirname, '..', '..');
const json = (name: string) => JSON.parse(readFileSync(join(ROOT, name), 'utf8'));
const pkg = json('package.json');
const manifest = json('manifest.json');
const server = json('server.json');
const KNOWN_ENV = new Set(CONFIG_DOCS.map((d) => d.env).filter(Boolean));

describe('manifest.json (MCP Bundle)', () => {
  it('has the package version and runs the built entry with node', () => {
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.server).toMatchObject({ type: 'node', entry_point: pkg.bin['genplat-mcp'] });
    expect(manifest.server.mcp_config.args).toEqual([`\${__dirname}/${pkg.bin['genplat-mcp']}`]);
  });

  it('lists exactly the registered tools', () => {
    // The bundle runs over stdio, where decide_approval is never listed (an approval needs a second, proven person).
    const expected = listedWithoutPolicy('stdio').map((t) => ({
      name: t.name,
      description: `${t.title}${t.billable ? ' (paid: confirmation first)' : ' (free)'}`,
    }));
    expect(manifest.tools).toEqual(expected);
  });

  it('keeps the API key sensitive and maps every user_config field to a known variable', () => {
    expect(manifest.user_config.api_key.sensitive).toBe(true);
    const env = manifest.server.mcp_config.env as Record<string, string>;
    for (const [name, value] of Object.entries(env)) {
      expect(KNOWN_ENV.has(name), name).toBe(true);
      const field = /^\$\{user_config\.([a-z_]+)\}$/.exec(value)?.[1];
      expect(field && manifest.user_config[field], `${name} → ${value}`).toBeTruthy();
    }
    // Every field is used, and blank optional fields have defaults (hosts then pass "" or the default).
    for (const [field, spec] of Object.entries(manifest.user_config as Record<string, { default?: unknown }>)) {
      expect(Object.values(env), field).toContain(`\${user_config.${field}}`);
      expect(spec.default, field).toBeDefined();
    }
  });
});

describe('server.json (MCP registry)', () => {
  it('names the npm package at its version, over stdio', () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    expect(server.description.length).toBeLessThanOrEqual(100);
    const [npm] = server.packages;
    expect(npm).toMatchObject({ registryType: 'npm', identifier: pkg.name, version: pkg.version });
    expect(npm.transport).toEqual({ type: 'stdio' });
    for (const v of npm.environmentVariables) expect(KNOWN_ENV.has(v.name), v.name).toBe(true);
    expect(npm.environmentVariables.find((v: { name: string }) => v.name === 'GENPLAT_API_KEY').isSecret).toBe(true);
  });
});
