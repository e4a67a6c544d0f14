/**
 * The run tool: a command in a client terminal (`terminal/create`), embedded in the tool call so the client shows
 * its live output, waited for with a timeout (then `terminal/kill`), and ALWAYS released (`terminal/release`, also
 * on failure, timeout and cancellation; the release is sent outside the turn's signal so a cancel cannot skip it).
 * Runs through the mode gate first. Needs the client's `terminal` capability.
 * @see https://agentclientprotocol.com/protocol/terminals
 */
import { isAbortError, terminalContent, textContent } from "../../../agent/toolkit/index.js";
import type { CreateTerminalResponse, TerminalOutputResponse, WaitForTerminalExitResponse } from "../../../protocol/index.js";
import { sleep, type TurnContext } from "../context.js";
import { gateChange } from "./gate.js";
import { clip, errorText, type ToolResult } from "./result.js";

/** The shell invocation of a command line on this platform. */
export function shellCommand(line: string, platform: NodeJS.Platform = process.platform): { command: string; args: string[] } {
  return platform === "win32" ? { command: "cmd.exe", args: ["/d", "/s", "/c", line] } : { command: "/bin/sh", args: ["-c", line] };
}

function describeExit(exit: WaitForTerminalExitResponse | null | undefined): string {
  if (!exit) return "still running";
  if (exit.signal) return `killed by ${exit.signal}`;
  return `exit code ${exit.exitCode ?? "unknown"}`;
}

/** Runs `line` in the session's `cwd` in a client terminal; fails after `timeoutMs`. */
export async function runTool(ctx: TurnContext, line: string, timeoutMs: number): Promise<ToolResult> {
  const { turn } = ctx;
  const call = turn.toolCall({ title: `Run ${line}`, kind: "execute", rawInput: { command: line, timeoutMs } });
  if (ctx.clientCapabilities.terminal !== true) {
    const why = "the client did not advertise the terminal capability, so this agent cannot run commands";
    await call.fail(why);
    return { ok: false, output: why };
  }
  const refused = await gateChange(ctx, call);
  if (refused !== undefined) return { ok: false, output: refused };
  const { command, args } = shellCommand(line);
  const created = await turn.request<CreateTerminalResponse>("terminal/create", {
    sessionId: turn.sessionId,
    command,
    args,
    cwd: turn.session.cwd,
    outputByteLimit: 256 * 1024,
  });
  const ids = { sessionId: turn.sessionId, terminalId: created.terminalId };
  try {
    await call.start({ content: [terminalContent(created.terminalId)] });
    const timer = new AbortController();
    const timedOut = sleep(timeoutMs, timer.signal).then(() => "timeout" as const);
    timedOut.catch(() => {});
    const exited = turn.request<WaitForTerminalExitResponse>("terminal/wait_for_exit", ids);
    const first = await Promise.race([exited, timedOut]).finally(() => timer.abort());
    if (first === "timeout") {
      exited.catch(() => {});
      await turn.request("terminal/kill", ids);
    }
    const output = await turn.request<TerminalOutputResponse>("terminal/output", ids);
    const status = first === "timeout" ? `timed out after ${timeoutMs} ms and was killed` : describeExit(first);
    const text = `${output.output}${output.truncated ? "\n(output truncated)" : ""}`;
    const content = [terminalContent(created.terminalId), textContent(status)];
    const ok = first !== "timeout" && first.exitCode === 0;
    if (ok) await call.complete({ content, rawOutput: { exitCode: 0, output: clip(text) } });
    else await call.update({ content }).then(() => call.fail(undefined, { rawOutput: { status, output: clip(text) } }));
    return { ok, output: `${status}\n${clip(text)}` };
  } catch (error) {
    if (isAbortError(error) || turn.signal.aborted) throw error;
    await call.fail(`could not run ${line}: ${errorText(error)}`);
    return { ok: false, output: `could not run ${line}: ${errorText(error)}` };
  } finally {
    await turn.session.client.request("terminal/release", ids).catch((error: unknown) => {
      ctx.settings.logger.warn("terminal/release failed", { terminalId: created.terminalId, detail: errorText(error) });
    });
  }
}
