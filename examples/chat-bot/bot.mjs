#!/usr/bin/env node
/**
 * The reference chat bot against real Slack and a genplat-mcp HTTP server (README.md beside this file;
 * docs/chat-bots.md "The reference bot"). Every setting is an environment variable; none is ever logged.
 */
import { createBot } from './lib/bot.mjs';
import { serve } from './lib/serve.mjs';

const need = (name) => {
  const v = process.env[name];
  if (!v) {
    process.stderr.write(`chat-bot: ${name} is required (see examples/chat-bot/README.md)\n`);
    process.exit(2);
  }
  return v;
};

const bot = createBot({
  slack: {
    botToken: need('SLACK_BOT_TOKEN'),
    signingSecret: need('SLACK_SIGNING_SECRET'),
    apiUrl: process.env.SLACK_API_URL,
    teamId: process.env.SLACK_TEAM_ID,
  },
  genplat: {
    url: need('GENPLAT_MCP_URL'),
    token: need('GENPLAT_BOT_TOKEN'),
    caller: `token:${process.env.GENPLAT_BOT_NAME ?? 'chatbot'}`,
  },
  eventsSecret: need('GENPLAT_EVENTS_SECRET'),
  decisionsAs: process.env.BOT_DECISIONS_AS ?? 'slack',
  modelConfig: {
    baseURL: need('MODEL_BASE_URL'),
    apiKey: need('MODEL_API_KEY'),
    id: need('MODEL_ID'),
  },
});
const http = await serve(bot, {
  port: Number(process.env.BOT_PORT ?? 3000),
  host: process.env.BOT_HOST ?? '127.0.0.1',
});
process.stderr.write(`chat-bot: listening on ${http.origin} (/slack/events, /genplat/events)\n`);
for (const sig of ['SIGINT', 'SIGTERM'])
  process.once(sig, async () => {
    await http.close();
    await bot.close();
    process.exit(0);
  });
