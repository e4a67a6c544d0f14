/**
 * Bad input: the agent answers malformed JSON, unknown methods and wrong params with the JSON-RPC errors, ignores
 * unknown notifications, and keeps serving afterwards (a batch, which ACP does not use, only warns).
 */
import { SPEC } from "@acpkit/sdk/wire";
import type { WireEvent } from "@acpkit/sdk/wire";
import { CheckFailed } from "../../results.js";
import { describeError, type AgentProcess } from "../agent-process.js";
import type { AgentScenario } from "../scenario.js";

const ANSWER_MS = 5000;

/** Fails unless the agent still answers a request. */
async function stillServing(agent: AgentProcess, after: string): Promise<void> {
  const { response } = agent.peer.request("_acp-check/ping", {}, { timeoutMs: ANSWER_MS });
  const answer = await response.catch(() => undefined);
  if (answer) return;
  if (agent.peer.closed)
    throw new CheckFailed(
      `the agent exited after ${after}; ${agent.stderr()}. An agent MUST survive bad input: answer it with an ` +
        `error and carry on.`,
    );
  throw new CheckFailed(
    `the agent stopped answering requests after ${after}. An agent MUST survive bad input: answer it with an ` +
      `error and carry on.`,
  );
}

const codeOf = (answer: WireEvent) => (answer.error as { code?: unknown } | undefined)?.code;

/** An error answer the agent wrote without an `id` member since event `since` (not a valid response: no id at all). */
function idlessError(agent: AgentProcess, since: number): WireEvent | undefined {
  return agent.peer.events.find(
    (e) =>
      e.index >= since &&
      e.from === "agent" &&
      e.type === "invalid" &&
      typeof e.value === "object" &&
      e.value !== null &&
      "error" in e.value &&
      !("id" in e.value),
  );
}

/** The warning for an answer without an id, naming what it carried. */
function idlessWarning(event: WireEvent, to: string): string {
  const error = (event.value as { error?: unknown }).error;
  return (
    `the agent answered ${to} with ${describeError(error)}, but without an "id": JSON-RPC 2.0 requires the ` +
    `answer to carry "id": null when the request's id could not be read (so the frame is not a valid message; ` +
    `see the jsonrpc.message finding)`
  );
}

export const extensionScenario: AgentScenario = {
  id: "ext.unknown",
  title: "unknown _ requests get -32601; unknown _ notifications are ignored",
  spec: `${SPEC}/extensibility#extension-methods`,
  async run(ctx) {
    const agent = await ctx.start();
    agent.peer.notify("_acp-check/notice", { hello: true });
    const answer = await agent.call("_acp-check/unknown", { hello: true }, ANSWER_MS);
    if (answer.error === undefined) return "the agent implements _acp-check/unknown (answered with a result)";
    if (codeOf(answer) !== -32601)
      throw new CheckFailed(
        `the agent answered an unknown extension request with ${describeError(answer.error)}. An unrecognized ` +
          `method MUST be answered with -32601 (Method not found).`,
      );
    await stillServing(agent, "an unknown extension notification");
    return "-32601 for the request; the notification ignored";
  },
};

export const malformedScenario: AgentScenario = {
  id: "robust.malformed-json",
  title: "a malformed line: answered -32700, the agent carries on",
  spec: `${SPEC}/transports#stdio`,
  async run(ctx) {
    const agent = await ctx.start();
    const since = agent.peer.events.length;
    agent.peer.sendRaw('{"jsonrpc":"2.0","id":"acp-check-broken","method":"session/new","params":{\n');
    const parse = await agent.peer
      .waitFor((e) => e.type === "response" && e.id === null, { what: "a -32700 answer", timeoutMs: ANSWER_MS, since })
      .catch(() => undefined);
    const idless = parse ? undefined : idlessError(agent, since);
    if (idless) ctx.warn(idlessWarning(idless, "a malformed line"));
    else if (!parse)
      ctx.warn("the agent did not answer a malformed line with -32700 Parse error (id null), as JSON-RPC 2.0 requires");
    else if (codeOf(parse) !== -32700)
      ctx.warn(`the agent answered a malformed line with ${describeError(parse.error)}, not -32700 Parse error`);
    await stillServing(agent, "a malformed line");
    return parse
      ? "answered -32700, still serving"
      : idless
        ? "answered without an id, still serving"
        : "still serving";
  },
};

export const batchScenario: AgentScenario = {
  id: "robust.batch",
  title: "a JSON-RPC batch (which ACP does not use): refused, the agent carries on",
  spec: `${SPEC}/overview`,
  async run(ctx) {
    const agent = await ctx.start();
    const since = agent.peer.events.length;
    agent.peer.sendRaw('[{"jsonrpc":"2.0","id":"acp-check-batch","method":"_acp-check/ping"}]\n');
    const batch = await agent.peer
      .waitFor((e) => e.type === "response", { what: "an answer to the batch", timeoutMs: ANSWER_MS, since })
      .catch(() => undefined);
    const { response } = agent.peer.request("_acp-check/ping", {}, { timeoutMs: ANSWER_MS });
    const alive = await response.catch(() => undefined);
    if (!alive) {
      // ACP does not use batches, so a client never sends one: dying on it is a robustness defect, not a violation.
      ctx.warn(
        `the agent ${agent.peer.closed ? "exited" : "stopped answering"} after a JSON-RPC batch line; ACP ` +
          `does not use batches, but an agent should survive any line it is sent (answer it with ` +
          `-32600)${agent.peer.closed ? `; ${agent.stderr()}` : ""}`,
      );
      return "did not survive the batch (a warning: ACP does not use batches)";
    }
    const idless = idlessError(agent, since);
    if ((!batch || batch === alive) && idless) ctx.warn(idlessWarning(idless, "a JSON-RPC batch"));
    else if (!batch || batch === alive)
      ctx.warn("the agent did not answer a JSON-RPC batch with an error (-32600 Invalid Request)");
    return "still serving";
  },
};

export const unknownMethodScenario: AgentScenario = {
  id: "robust.unknown-method",
  title: "an unknown (non-extension) method: answered -32601, the agent carries on",
  spec: `${SPEC}/overview#error-handling`,
  async run(ctx) {
    const agent = await ctx.start();
    const answer = await agent.call("acp-check/no-such-method", {}, ANSWER_MS);
    if (answer.error === undefined)
      throw new CheckFailed(
        "the agent answered acp-check/no-such-method with a result. An unknown method MUST be answered with " +
          "error -32601 (Method not found).",
      );
    if (codeOf(answer) !== -32601)
      ctx.warn(
        `the agent answered an unknown method with ${describeError(answer.error)}, not -32601 (Method not found)`,
      );
    await stillServing(agent, "an unknown method");
    return "-32601";
  },
};

export const invalidParamsScenario: AgentScenario = {
  id: "robust.invalid-params",
  title: "wrong params: answered -32602, the agent carries on",
  spec: `${SPEC}/overview#error-handling`,
  async run(ctx) {
    const agent = await ctx.start();
    const answer = await agent.call("session/new", { cwd: 42, mcpServers: "none" }, ANSWER_MS);
    if (answer.error === undefined)
      throw new CheckFailed(
        'the agent accepted session/new with {"cwd": 42, "mcpServers": "none"}. Params that do not match the ' +
          "schema MUST be refused with an error (-32602 Invalid params).",
      );
    if (codeOf(answer) !== -32602)
      ctx.warn(`the agent answered invalid params with ${describeError(answer.error)}, not -32602 (Invalid params)`);
    await stillServing(agent, "invalid params");
    return `refused with ${describeError(answer.error)}`;
  },
};
