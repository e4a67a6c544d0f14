/**
 * Session-level commands: `/elicit` (asks the user through a form, `elicitation/create`), `/usage` (a
 * `usage_update` with the session's token count), `/title TEXT` (a `session_info_update`).
 */
import { supportsElicitation } from "@acpkit/sdk/agent-toolkit";
import type { RefCommand } from "./registry.js";

/** The context window the scripted agent reports. */
export const CONTEXT_SIZE = 128_000;

export const sessionCommands: RefCommand[] = [
  {
    name: "elicit",
    description: "Ask you for structured input through a form (needs the client's elicitation capability)",
    async run(ctx) {
      if (!supportsElicitation(ctx.turn.session.clientCapabilities, "form")) {
        return ctx.turn.say("Your client did not advertise elicitation.form, so I cannot ask for structured input.");
      }
      const response = await ctx.turn.elicit({
        mode: "form",
        message: "The reference agent would like to know two things.",
        requestedSchema: {
          properties: {
            name: { type: "string", title: "Your name", minLength: 1 },
            language: { type: "string", title: "Favourite language", enum: ["TypeScript", "Rust", "Python", "Go"] },
          },
          required: ["name"],
        },
      });
      if (response.action === "accept") {
        const content = (response as { content?: Record<string, unknown> | null }).content ?? {};
        return ctx.turn.say(`You answered: ${JSON.stringify(content)}.`);
      }
      await ctx.turn.say(`You chose to ${response.action} the form.`);
    },
  },
  {
    name: "usage",
    description: "Report the session's token usage (usage_update)",
    async run(ctx) {
      const used = ctx.state.tokensUsed;
      await ctx.turn.reportUsage({ used, size: CONTEXT_SIZE, cost: { amount: 0, currency: "USD" } });
      await ctx.turn.say(`This session has used ${used} of ${CONTEXT_SIZE} tokens (cost: $0.00).`);
    },
  },
  {
    name: "title",
    description: "Set the session's title (session_info_update)",
    input: { hint: "TEXT" },
    async run(ctx, args) {
      if (args === "") return ctx.turn.say("Usage: /title TEXT");
      await ctx.turn.session.setTitle(args);
      await ctx.turn.say(`The session is now titled "${args}".`);
    },
  },
];
