/**
 * Rules on the initialization phase and on capabilities, both derived from the method table: the client
 * initializes first, and neither side calls a method the other did not advertise.
 */
import { hasCapability } from "../../protocol/index.js";
import { other, The, the } from "./describe.js";
import { SPEC, type Rule } from "./types.js";

/** `capability.gate`: a gated method is used only when the side that handles it advertised the capability. */
export const capabilityRule: Rule = {
  id: "capability.gate",
  spec: `${SPEC}/initialization#capabilities`,
  description: "A method gated by a capability is used only when the peer advertised that capability in initialize",
  severity: "error",
  judges: ["agent", "client"],
  versions: [1, 2],
  create(context) {
    return {
      onEvent(event) {
        if (event.type !== "request" && event.type !== "notification") return;
        const gate = event.entry?.capability;
        if (!gate || gate.advertisedBy === event.from || !context.conversation.initialized) return;
        const capabilities = context.conversation.capabilities(gate.advertisedBy);
        if (hasCapability(capabilities, gate.path)) return;
        const flag = gate.path.join(".");
        // v1: agentCapabilities / clientCapabilities; v2: capabilities on both sides.
        const where =
          context.conversation.version === 2
            ? "capabilities"
            : gate.advertisedBy === "agent"
              ? "agentCapabilities"
              : "clientCapabilities";
        context.report({
          side: event.from,
          event,
          path: "$.method",
          message:
            `${The(event.from)} called ${event.method}, but ${the(other(event.from))} did not advertise ` +
            `${where}.${flag} in initialize. A side MUST NOT use a method whose capability its peer did not ` +
            `advertise.`,
        });
      },
    };
  },
};

/** `initialize.first`: the client sends nothing but `initialize` until it is answered. */
export const initializeFirstRule: Rule = {
  id: "initialize.first",
  spec: `${SPEC}/initialization`,
  description: "The client initializes the connection before any other request",
  severity: "error",
  judges: ["client"],
  versions: [1, 2],
  create(context) {
    let reported = false;
    let asked = false;
    return {
      onEvent(event) {
        if (event.from !== "client" || event.type !== "request" || reported) return;
        if (event.method === "initialize") {
          asked = true;
          return;
        }
        if (context.conversation.initialized || event.method?.startsWith("_")) return;
        reported = true;
        context.report({
          side: "client",
          event,
          message:
            `The client sent ${event.method} before ` +
            `${asked ? "its initialize request was answered" : "initialize"}. Clients MUST initialize the ` +
            `connection (and wait for the answer) before creating or using sessions.`,
        });
      },
    };
  },
};
