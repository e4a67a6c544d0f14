/**
 * Framing and JSON-RPC rules: every line is a JSON-RPC 2.0 message, every response answers a pending request of
 * the other side, and no request is answered twice.
 */
import { frameText } from "../events.js";
import { other, the, The } from "./describe.js";
import { SPEC, type Rule } from "./types.js";

/** `jsonrpc.message`: only valid JSON-RPC messages on the wire (no log lines on stdout, no batches). */
export const messageRule: Rule = {
  id: "jsonrpc.message",
  spec: `${SPEC}/transports#stdio`,
  description: "Every line on the wire is one JSON-RPC 2.0 message (nothing else on the agent's stdout or stdin)",
  severity: "error",
  judges: ["agent", "client"],
  versions: [1, 2],
  create(context) {
    return {
      onEvent(event) {
        const stream = event.from === "agent" ? "its stdout" : "the agent's stdin";
        const must =
          event.from === "agent"
            ? "The agent MUST NOT write anything to its stdout that is not a valid ACP message (logs go to stderr)."
            : "The client MUST NOT write anything to the agent's stdin that is not a valid ACP message.";
        if (event.type === "unparsable") {
          context.report({
            side: event.from,
            event,
            message:
              `${The(event.from)} wrote a line that is not JSON on ${stream}: ` +
              `${JSON.stringify(frameText(event, 120))}. ${must}`,
          });
        } else if (event.type === "invalid") {
          context.report({
            side: event.from,
            event,
            message:
              `${The(event.from)} wrote JSON that is not a JSON-RPC 2.0 message on ${stream} (${event.reason}). ` +
              `${must}`,
          });
        }
      },
    };
  },
};

/** `jsonrpc.response`: a response answers a pending request of the other side, exactly once. */
export const responseRule: Rule = {
  id: "jsonrpc.response",
  spec: `${SPEC}/overview#message-flow`,
  description: "Every response answers a request the other side sent and has not had answered yet",
  severity: "error",
  judges: ["agent", "client"],
  versions: [1, 2],
  create(context) {
    return {
      onEvent(event) {
        if (event.type !== "response" || event.request || event.answersInvalid) return;
        const id = JSON.stringify(event.id);
        context.report({
          side: event.from,
          event,
          path: "$.id",
          message: event.duplicate
            ? `${The(event.from)} answered request ${id} of ${the(other(event.from))} a second time. Every ` +
              `JSON-RPC request gets exactly one response.`
            : `${The(event.from)} sent a response with id ${id}, but ${the(other(event.from))} has no pending ` +
              `request with that id. A response MUST carry the id of the request it answers.`,
        });
      },
    };
  },
};

/**
 * `method.known`: methods are ACP methods sent in their direction and as their kind; other names are extensions
 * and start with an underscore.
 */
export const methodRule: Rule = {
  id: "method.known",
  spec: `${SPEC}/extensibility#extension-methods`,
  description: 'Methods are sent by the side the schema says, as the kind it says; custom methods start with "_"',
  severity: "error",
  judges: ["agent", "client"],
  versions: [1, 2],
  create(context) {
    return {
      onEvent(event) {
        if (event.type !== "request" && event.type !== "notification") return;
        const method = event.method!;
        const entry = event.entry;
        if (!entry) {
          if (method.startsWith("_")) return;
          context.report({
            side: event.from,
            event,
            path: "$.method",
            severity: "warning",
            message:
              `${The(event.from)} sent ${JSON.stringify(method)}, which is not an ACP method of this schema. ` +
              `Custom methods MUST start with an underscore ("_${method}").`,
          });
          return;
        }
        if (entry.handledBy === event.from) {
          context.report({
            side: event.from,
            event,
            path: "$.method",
            message:
              `${The(event.from)} sent ${method}, which only ${the(other(event.from))} sends. ACP methods go in ` +
              `the direction the schema gives them.`,
          });
        } else if (entry.kind !== event.type) {
          context.report({
            side: event.from,
            event,
            path: entry.kind === "notification" ? "$.id" : "$",
            message:
              `${The(event.from)} sent ${method} as a ${event.type}, but it is a ` +
              `${entry.kind}${entry.kind === "notification" ? " (no id, no response)" : " (with an id, answered)"}.`,
          });
        }
      },
    };
  },
};
