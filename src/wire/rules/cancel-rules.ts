/**
 * Cancellation rules: a cancelled turn is answered with stopReason `cancelled` (not `end_turn`, not an error), and
 * a client that cancels answers its pending permission requests `cancelled`.
 */
import type { JsonRpcId } from "../../jsonrpc/messages.js";
import { sessionIdOf, type WireEvent } from "../events.js";
import { SPEC, type Rule } from "./types.js";

/**
 * How long after `session/cancel` a turn's answer has to come for it to be judged: an answer written before the agent
 * could have read the cancel (a turn that ended by itself at that very moment) is not a violation. The two
 * directions of a pipe are not ordered with each other, so a small window is left to that race.
 */
export const CANCEL_RACE_MS = 50;

const idKey = (id: JsonRpcId | undefined) => JSON.stringify(id);

/** `cancel.stop-reason`: after `session/cancel` (or `session/close`) the pending prompt is answered `cancelled`. */
export const cancelStopReasonRule: Rule = {
  id: "cancel.stop-reason",
  spec: `${SPEC}/prompt-turn#cancellation`,
  description:
    'A turn cancelled with session/cancel (or ended by session/close) is answered with stopReason "cancelled"',
  severity: "error",
  judges: ["agent"],
  create(context) {
    /** Pending prompts by session, and the cancel that hit each. */
    const prompts = new Map<string, WireEvent>();
    const cancels = new Map<string, WireEvent>();
    return {
      onEvent(event) {
        if (event.from === "client") {
          const sessionId = sessionIdOf(event);
          if (sessionId === undefined) return;
          if (event.type === "request" && event.method === "session/prompt") prompts.set(sessionId, event);
          const cancelling =
            (event.type === "notification" && event.method === "session/cancel") ||
            (event.type === "request" && event.method === "session/close");
          const prompt = prompts.get(sessionId);
          if (cancelling && prompt && !cancels.has(idKey(prompt.id))) cancels.set(idKey(prompt.id), event);
          return;
        }
        if (event.type !== "response" || event.method !== "session/prompt" || !event.request) return;
        const sessionId = sessionIdOf(event);
        if (sessionId !== undefined && prompts.get(sessionId) === event.request) prompts.delete(sessionId);
        const cancel = cancels.get(idKey(event.id));
        cancels.delete(idKey(event.id));
        if (!cancel) return;
        const how = cancel.method === "session/close" ? "session/close" : "session/cancel";
        const after = Math.round(event.time - cancel.time);
        if (event.error !== undefined) {
          const error = event.error as { code?: unknown; message?: unknown };
          context.report({
            side: "agent",
            event,
            path: "$.error",
            message:
              `The agent answered the cancelled session/prompt (id ${idKey(event.id)}) with an error ` +
              `(${String(error.code)}: ${String(error.message)}) ${after} ms after ${how}. Agents MUST catch ` +
              `the errors of an aborted turn and answer with stopReason "cancelled".`,
          });
          return;
        }
        const stopReason = (event.result as { stopReason?: unknown } | undefined)?.stopReason;
        if (stopReason === "cancelled" || after < CANCEL_RACE_MS) return;
        context.report({
          side: "agent",
          event,
          path: "$.result.stopReason",
          message:
            `The agent answered stopReason ${JSON.stringify(stopReason)} to a turn it had been told to stop ` +
            `with ${how} ${after} ms earlier (session/prompt id ${idKey(event.id)}). After ${how} the agent ` +
            `MUST answer the prompt with stopReason "cancelled".`,
        });
      },
    };
  },
};

/** `cancel.pending-permission`: after `session/cancel`, pending permission requests are answered `cancelled`. */
export const cancelPendingPermissionRule: Rule = {
  id: "cancel.pending-permission",
  spec: `${SPEC}/prompt-turn#cancellation`,
  description:
    'After session/cancel the client answers every pending session/request_permission with outcome "cancelled"',
  severity: "error",
  judges: ["client"],
  create(context) {
    /** Permission requests pending, by id; and those that were pending when their session was cancelled. */
    const pending = new Map<string, WireEvent>();
    const cancelled = new Map<string, WireEvent>();
    return {
      onEvent(event) {
        if (event.from === "agent" && event.type === "request" && event.method === "session/request_permission") {
          pending.set(idKey(event.id), event);
          return;
        }
        if (event.from !== "client") return;
        if (event.type === "notification" && event.method === "session/cancel") {
          const sessionId = sessionIdOf(event);
          for (const [key, request] of pending) if (sessionIdOf(request) === sessionId) cancelled.set(key, event);
          return;
        }
        if (event.type !== "response" || event.method !== "session/request_permission") return;
        const key = idKey(event.id);
        pending.delete(key);
        const cancel = cancelled.get(key);
        cancelled.delete(key);
        if (!cancel || event.error !== undefined) return;
        const outcome = (event.result as { outcome?: { outcome?: unknown; optionId?: unknown } } | undefined)?.outcome;
        if (outcome?.outcome === "cancelled") return;
        context.report({
          side: "client",
          event,
          path: "$.result.outcome",
          message:
            `The client answered session/request_permission (id ${key}) with outcome ` +
            (`${JSON.stringify(outcome?.outcome)}${outcome?.optionId !== undefined ? ` (option ${JSON.stringify(outcome.optionId)})` : ""} after it had cancelled ` +
              `the turn with session/cancel. The client MUST answer every pending permission request of a cancelled turn with the "cancelled" outcome.`),
        });
      },
    };
  },
};
