/** Terminal rules: every terminal an agent creates is released, and not used after its release. */
import { SPEC, type Rule } from "./types.js";
import type { WireEvent } from "../events.js";

/** `terminal.release`: the agent releases every terminal it created. */
export const terminalReleaseRule: Rule = {
  id: "terminal.release",
  spec: `${SPEC}/terminals#releasing-terminals`,
  description: "The agent releases every terminal it created with terminal/release, and does not use it afterwards",
  severity: "error",
  judges: ["agent"],
  create(context) {
    const open = new Map<string, WireEvent>();
    const released = new Set<string>();
    const terminalOf = (event: WireEvent) => (event.params as { terminalId?: unknown } | undefined)?.terminalId;
    return {
      onEvent(event) {
        if (
          event.from === "client" &&
          event.type === "response" &&
          event.method === "terminal/create" &&
          event.error === undefined
        ) {
          const id = (event.result as { terminalId?: unknown } | undefined)?.terminalId;
          if (typeof id === "string") open.set(id, event);
          return;
        }
        if (event.from !== "agent" || event.type !== "request" || !event.method?.startsWith("terminal/")) return;
        const id = terminalOf(event);
        if (typeof id !== "string") return;
        if (event.method === "terminal/release") {
          open.delete(id);
          released.add(id);
        } else if (released.has(id)) {
          context.report({
            side: "agent",
            event,
            path: "$.params.terminalId",
            severity: "warning",
            message:
              `The agent called ${event.method} on terminal ${id} after releasing it. A released terminal's id ` +
              `is no longer valid.`,
          });
        }
      },
      onEnd() {
        for (const [id, created] of open) {
          const command = (created.request?.params as { command?: unknown } | undefined)?.command;
          context.report({
            side: "agent",
            event: created,
            message:
              `The agent never released terminal ` +
              `${id}${typeof command === "string" ? ` (command ${JSON.stringify(command)})` : ""}. The agent ` +
              `MUST release every terminal with terminal/release when it no longer needs it, also after killing ` +
              `it.`,
          });
        }
      },
    };
  },
};
