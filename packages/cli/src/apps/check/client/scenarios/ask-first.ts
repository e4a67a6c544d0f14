/**
 * What a well-behaved agent does before it edits a file or runs a command: a `tool_call` and a
 * `session/request_permission` for it, whose options are allow once / reject once. A client whose permission policy
 * rejects it (acp exec's default `allow-reads`, a `deny-all`, a user who says no) is within its rights: the
 * scenario that needed the access is then "not exercised", never failed. A client that grants the permission and
 * then refuses the access is failed by the scenario itself.
 * @see https://agentclientprotocol.com/protocol/tool-calls#requesting-permission
 */
import { CheckFailed, NotExercised } from "../../results.js";
import type { ClientScenarioContext } from "../scenario.js";
import type { PromptTurn, ScriptedAgent } from "../scripted-agent.js";

/** The access asked for: an edit of `path`, or running `command`. */
export type AskedAccess = { kind: "edit"; path: string } | { kind: "execute"; command: string };

const OPTIONS = [
  { optionId: "acp-check-allow-once", name: "Allow once", kind: "allow_once" },
  { optionId: "acp-check-reject-once", name: "Reject once", kind: "reject_once" },
];

/** Asks the client's permission for `access` in `turn`; returns once granted, throws `NotExercised` when refused. */
export async function askPermissionFirst(
  ctx: ClientScenarioContext,
  agent: ScriptedAgent,
  turn: PromptTurn,
  access: AskedAccess,
): Promise<void> {
  const toolCallId = `acp-check-${ctx.marker(access.kind)}`;
  const what = access.kind === "edit" ? `write ${access.path}` : `run ${access.command}`;
  const toolCall = {
    toolCallId,
    title: access.kind === "edit" ? `Write ${access.path}` : `Run ${access.command}`,
    kind: access.kind,
    status: "pending",
    ...(access.kind === "edit"
      ? { locations: [{ path: access.path }], rawInput: { path: access.path } }
      : { rawInput: { command: access.command } }),
  };
  agent.update(turn.sessionId, { sessionUpdate: "tool_call", ...toolCall });
  const answer = await agent.ask(
    "session/request_permission",
    { sessionId: turn.sessionId, toolCall, options: OPTIONS },
    ctx.target.turnTimeoutMs,
  );
  if (answer.error !== undefined)
    throw new CheckFailed(
      `the client answered session/request_permission (to ${what}) with an error ` +
        `(${JSON.stringify(answer.error)}); it MUST answer with an outcome`,
    );
  const outcome = ((answer.result as { outcome?: { outcome?: string; optionId?: string } } | undefined)?.outcome ??
    {}) as { outcome?: string; optionId?: string };
  const granted = outcome.outcome === "selected" && outcome.optionId === "acp-check-allow-once";
  agent.update(turn.sessionId, {
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: granted ? "in_progress" : "failed",
  });
  if (!granted) {
    throw new NotExercised(
      `the client's permission policy did not grant the permission to ` +
        `${what} (${outcome.outcome === "selected" ? `selected ${String(outcome.optionId)}` : String(outcome.outcome)}); ` +
        "run the client with a policy that allows it to exercise this check (e.g. acp exec --permissions allow-all)",
    );
  }
}
