/** Terminals: the whole lifecycle served, output cut at a character boundary, refused outside the session's roots. */
import { SPEC } from "@acpkit/sdk/wire";
import { CheckFailed } from "../../results.js";
import type { ScriptedAgent, PromptTurn } from "../scripted-agent.js";
import type { ClientScenario, ClientScenarioContext } from "../scenario.js";
import { askPermissionFirst } from "./ask-first.js";

const describe = (error: unknown) => {
  const e = (error ?? {}) as { code?: unknown; message?: unknown };
  return `${String(e.code)} ${String(e.message)}`;
};

/** `node -e SCRIPT` as a terminal command (the client runs it without a shell). */
const node = (script: string) => ({ command: process.execPath, args: ["-e", script] });

async function create(
  ctx: ClientScenarioContext,
  agent: ScriptedAgent,
  turn: PromptTurn,
  params: Record<string, unknown>,
): Promise<string> {
  const answer = await agent.ask(
    "terminal/create",
    { sessionId: turn.sessionId, cwd: turn.cwd, ...params },
    ctx.target.turnTimeoutMs,
  );
  if (answer.error !== undefined)
    throw new CheckFailed(
      `the client advertises terminal but answered terminal/create (${params.command} in ${turn.cwd}) with an ` +
        `error: ${describe(answer.error)}`,
    );
  const id = (answer.result as { terminalId?: unknown }).terminalId;
  if (typeof id !== "string") throw new CheckFailed("terminal/create answered without a terminalId");
  return id;
}

async function call(
  ctx: ClientScenarioContext,
  agent: ScriptedAgent,
  method: string,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const answer = await agent.ask(method, params, ctx.target.turnTimeoutMs);
  if (answer.error !== undefined) throw new CheckFailed(`${method} answered with an error: ${describe(answer.error)}`);
  return (answer.result ?? {}) as Record<string, unknown>;
}

export const terminalScenario: ClientScenario = {
  id: "terminal.lifecycle",
  title: "terminal/create, wait_for_exit, output, kill and release are served (after a granted permission request)",
  spec: `${SPEC}/terminals`,
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    ctx.requireClient(agent, ["terminal"]);
    const sessionId = turn.sessionId;
    const marker = ctx.marker("terminal");
    await askPermissionFirst(ctx, agent, turn, { kind: "execute", command: process.execPath });
    const id = await create(ctx, agent, turn, node(`process.stdout.write(${JSON.stringify(`${marker}\n`)})`));
    const exit = await call(ctx, agent, "terminal/wait_for_exit", { sessionId, terminalId: id });
    if (exit.exitCode !== 0)
      throw new CheckFailed(`terminal/wait_for_exit of a command that exits 0 answered ${JSON.stringify(exit)}`);
    const output = await call(ctx, agent, "terminal/output", { sessionId, terminalId: id });
    if (typeof output.output !== "string" || !output.output.includes(marker))
      throw new CheckFailed(
        `terminal/output after the command printed "${marker}" answered ${JSON.stringify(output).slice(0, 200)}`,
      );
    if (output.exitStatus == null) ctx.warn("terminal/output of a finished command did not include its exitStatus");
    await call(ctx, agent, "terminal/release", { sessionId, terminalId: id });
    const after = await agent.ask("terminal/output", { sessionId, terminalId: id }, ctx.target.turnTimeoutMs);
    if (after.error === undefined)
      ctx.warn(
        "terminal/output of a released terminal still answered; after release the terminal id is no longer valid",
      );
    const long = await create(ctx, agent, turn, node("setTimeout(() => {}, 60000)"));
    await call(ctx, agent, "terminal/kill", { sessionId, terminalId: long });
    const killed = await call(ctx, agent, "terminal/wait_for_exit", { sessionId, terminalId: long });
    await call(ctx, agent, "terminal/release", { sessionId, terminalId: long });
    await ctx.finish(agent, turn);
    return (
      `exit 0 and its output; killed ` +
      `(${killed.signal ? `signal ${String(killed.signal)}` : `exit code ${String(killed.exitCode)}`}) and ` +
      `released`
    );
  },
};

export const outputLimitScenario: ClientScenario = {
  id: "terminal.output-limit",
  title: "outputByteLimit keeps the latest output, cut at a character boundary",
  spec: `${SPEC}/terminals#executing-commands`,
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    ctx.requireClient(agent, ["terminal"]);
    await askPermissionFirst(ctx, agent, turn, { kind: "execute", command: process.execPath });
    const id = await create(ctx, agent, turn, {
      ...node("process.stdout.write('\\u00e9'.repeat(100))"),
      outputByteLimit: 11,
    });
    await call(ctx, agent, "terminal/wait_for_exit", { sessionId: turn.sessionId, terminalId: id });
    const result = await call(ctx, agent, "terminal/output", { sessionId: turn.sessionId, terminalId: id });
    await call(ctx, agent, "terminal/release", { sessionId: turn.sessionId, terminalId: id });
    const output = String(result.output ?? "");
    const bytes = new TextEncoder().encode(output).length;
    if (bytes > 11)
      throw new CheckFailed(
        `with outputByteLimit 11, terminal/output returned ${bytes} bytes. The client MUST keep at most ` +
          `outputByteLimit bytes.`,
      );
    if (output.includes("\ufffd") || /[^\u00e9]/.test(output))
      throw new CheckFailed(
        `with outputByteLimit 11 over 100 "é" (2 bytes each), terminal/output returned ` +
          `${JSON.stringify(output)}: a character was cut. The client MUST truncate at a character boundary.`,
      );
    if (result.truncated !== true)
      throw new CheckFailed("terminal/output of output cut to outputByteLimit did not say truncated: true");
    if (output.length !== 5)
      ctx.warn(`with outputByteLimit 11 the client kept ${output.length} "é" (${bytes} bytes); 5 fit`);
    await ctx.finish(agent, turn);
    return `${bytes} bytes kept, truncated at a character boundary`;
  },
};

export const terminalOutsideScenario: ClientScenario = {
  id: "terminal.outside-roots",
  title: "terminal/create with a cwd outside the session's roots is refused",
  spec: `${SPEC}/session-setup#working-directory`,
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    ctx.requireClient(agent, ["terminal"]);
    const answer = await agent.ask(
      "terminal/create",
      { sessionId: turn.sessionId, cwd: ctx.outside, ...node("process.stdout.write('ran')") },
      ctx.target.turnTimeoutMs,
    );
    if (answer.error === undefined) {
      const terminalId = (answer.result as { terminalId?: unknown }).terminalId;
      await agent
        .ask("terminal/release", { sessionId: turn.sessionId, terminalId }, ctx.target.turnTimeoutMs)
        .catch(() => undefined);
      throw new CheckFailed(
        `the client started a command in ${ctx.outside}, outside the session's roots (${turn.cwd}). A client ` +
          `MUST confine terminals to the session's roots.`,
      );
    }
    await ctx.finish(agent, turn);
    return `refused: ${describe(answer.error)}`;
  },
};
