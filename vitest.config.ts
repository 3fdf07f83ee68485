import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start a loopback simulator and real MCP clients; give them room on a shared 2-core box.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
