/**
 * `confirm_paid_call`: the consent card's Confirm button. App-only (`_meta.ui.visibility: ["app"]`: the host lets
 * only the View call it, never the model), it redeems the quote's token through the same billable path as the
 * tool itself, marking the consent as a person's click (`carrier: 'human'`; ledger consent `click`). Listed to and
 * callable by only clients that declared MCP Apps (src/protocol/app-only.ts), and `click` is recorded only with
 * the nonce of a View this server served to this caller (`view_nonce`, src/apps/view-nonce.ts): a capability claim
 * alone is the client's word, not a person's. Without a valid nonce the call is the token's redemption
 * (`token`), and under GENPLAT_CONSENT=human, where only a click or an answered form confirms, it is refused unsent.
 *
 * Registered here, not in tools/: it is not a tool of its own but a second entrance to every billable tool.
 */

import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { scopeChallengeFor } from '../auth/scopes.js';
import type { PaidToolSpec, ToolSpec } from '../define-tool.js';
import { UserInputError } from '../errors.js';
import { checkArgumentDepth } from '../guards/depth.js';
import { JobEnvelopeShape } from '../jobs/envelope.js';
import { viewNonceRefusal } from '../paid/wording.js';
import { clientShowsApps } from '../protocol/app-only.js';
import type { ToolAnswer } from '../protocol/consent-form.js';
import { portableInputSchema, portableSchema } from '../protocol/portable-schema.js';
import { toolError } from '../result.js';
import { tracedTool } from '../telemetry/tool-span.js';
import { BILLABLE_ANNOTATIONS, GUARD_INPUT, type RuntimeDeps, runBillable } from '../tool-runtime.js';
import { transportOf, visibleSpecs } from '../tool-visibility.js';
import { CONFIRM_TOOL } from './confirm-name.js';
import { JOB_VIEWER_URI, uiMeta } from './uris.js';
import { viewNonceProblem } from './view-nonce.js';

export { CONFIRM_TOOL } from './confirm-name.js';

/** Registers the App's Confirm button when a billable tool is visible; returns whether it did. */
export function registerConfirmTool(server: McpServer, specs: ToolSpec[], deps: RuntimeDeps): boolean {
  const billable = visibleSpecs(specs, deps.config, transportOf(deps)).filter((s) => s.billable) as PaidToolSpec[];
  if (billable.length === 0) return false;
  const byName = new Map(billable.map((s) => [s.name, s]));
  const names = billable.map((s) => s.name) as [string, ...string[]];
  server.registerTool(
    CONFIRM_TOOL,
    {
      title: 'Confirm a paid job (App button)',
      description: "The job viewer's Confirm button: starts the quoted job. Only the App calls it.",
      inputSchema: portableInputSchema(
        z.strictObject({
          tool: z.enum(names).describe('the quoted tool'),
          arguments: z.record(z.string(), z.unknown()).describe('the quoted arguments, unchanged'),
          confirmation_token: z.string().min(1).describe('the quote token'),
          view_nonce: z.string().max(200).optional().describe("the View's nonce"),
        }),
      ),
      outputSchema: portableSchema(z.object(JobEnvelopeShape)),
      annotations: { title: 'Confirm a paid job', ...BILLABLE_ANNOTATIONS },
      _meta: uiMeta(JOB_VIEWER_URI, ['app']),
      // A second entrance to every paid tool: the same spend scope.
      scopeChallenge: scopeChallengeFor('spend'),
    },
    tracedTool(CONFIRM_TOOL, server, async (input, ctx): Promise<ToolAnswer> => {
      try {
        // Before anything walks the quoted arguments: the other tools get this bound from the runtime.
        checkArgumentDepth(input);
        // Only a View can click: a client that declared no MCP Apps support is not shown this tool
        // (src/protocol/app-only.ts), and one that calls it anyway (it listed the tool earlier, or guessed) is its
        // model, not a person. Refused before anything else: nothing is quoted, recorded or sent.
        if (!clientShowsApps(server, ctx)) {
          throw new UserInputError(
            CONFIRM_TOOL,
            "is the job viewer App's Confirm button, and this client declared no MCP Apps support (io.modelcontextprotocol/ui), so no person clicked it",
            'Show the user the quote and, if they agree, call the quoted tool again with its confirmation_token; nothing was sent or charged.',
          );
        }
        const problem = viewNonceProblem(
          await deps.jobs.consentKey(),
          input.view_nonce,
          deps.owner,
          (deps.now ?? Date.now)(),
        );
        if (problem && deps.config.consent === 'human') {
          const words = viewNonceRefusal(problem);
          throw new UserInputError('view_nonce', words.rule, words.next);
        }
        const spec = byName.get(input.tool);
        if (!spec) throw new UserInputError('tool', 'is not a billable tool of this server');
        // Same strict validation the tool's own call gets from the SDK: unknown or bad arguments cost nothing.
        const parsed = z
          .strictObject({ ...spec.input, ...GUARD_INPUT })
          .safeParse({ ...input.arguments, confirmation_token: input.confirmation_token });
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          // An unknown key's issue has an empty path and names the key in `keys`: name it, not `arguments.`.
          const path = [...(issue?.path ?? []), ...(issue?.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : [])];
          throw new UserInputError(
            path.length ? `arguments.${path.join('.')}` : 'arguments',
            issue?.message ?? 'invalid',
          );
        }
        // A click only from our View; otherwise the token's redemption, recorded as such.
        return await runBillable(server, spec, parsed.data, ctx, deps, problem ? 'model' : 'human');
      } catch (err) {
        return toolError(err, deps.log);
      }
    }),
  );
  return true;
}
