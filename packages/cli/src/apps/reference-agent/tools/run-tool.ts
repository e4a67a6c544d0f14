/**
 * The run tool: a command in a client terminal through the toolkit's `turn.runCommand` (embedded in the tool call
 * so the client shows its live output, killed after a timeout, and ALWAYS released, also on failure, timeout and
 * cancellation). Runs through the mode gate first. Needs the client's `terminal` capability.
 * @see https://agentclientprotocol.com/protocol/terminals
 */
import { isAbortError, terminalContent, textContent } from "@acpkit/sdk/agent-toolkit";
import { hasCapability, type TerminalExitStatus } from "@acpkit/sdk";
import type { TurnContext } from "../context.js";
import { gateChange } from "./gate.js";
import { clip, errorText, type ToolResult } from "./result.js";

/** The shell invocation of a command line on this platform. */
export function shellCommand(
  line: string,
  platform: NodeJS.Platform = process.platform,
): { command: string; args: string[] } {
  return platform === "win32"
    ? { command: "cmd.exe", args: ["/d", "/s", "/c", line] }
    : { command: "/bin/sh", args: ["-c", line] };
}

function describeExit(exit: TerminalExitStatus | null): string {
  if (!exit) return "still running";
  if (exit.signal) return `killed by ${exit.signal}`;
  return `exit code ${exit.exitCode ?? "unknown"}`;
}

/** Runs `line` in the session's `cwd` in a client terminal; fails after `timeoutMs`. */
export async function runTool(ctx: TurnContext, line: string, timeoutMs: number): Promise<ToolResult> {
  const { turn } = ctx;
  const call = turn.toolCall({ title: `Run ${line}`, kind: "execute", rawInput: { command: line, timeoutMs } });
  if (!hasCapability(turn.session.clientCapabilities, ["terminal"])) {
    const why = "the client did not advertise the terminal capability, so this agent cannot run commands";
    await call.fail(why);
    return { ok: false, output: why };
  }
  const refused = await gateChange(ctx, call);
  if (refused !== undefined) return { ok: false, output: refused };
  try {
    await call.start();
    const run = await turn.runCommand({
      ...shellCommand(line),
      cwd: turn.session.cwd,
      outputByteLimit: 256 * 1024,
      timeoutMs,
      toolCall: call,
    });
    const status = run.timedOut ? `timed out after ${timeoutMs} ms and was killed` : describeExit(run.exitStatus);
    const text = `${run.output}${run.truncated ? "\n(output truncated)" : ""}`;
    const content = [terminalContent(run.terminalId), textContent(status)];
    const ok = !run.timedOut && run.exitStatus?.exitCode === 0;
    if (ok) await call.complete({ content, rawOutput: { exitCode: 0, output: clip(text) } });
    else await call.update({ content }).then(() => call.fail(undefined, { rawOutput: { status, output: clip(text) } }));
    return { ok, output: `${status}\n${clip(text)}` };
  } catch (error) {
    if (isAbortError(error) || turn.signal.aborted) throw error;
    await call.fail(`could not run ${line}: ${errorText(error)}`);
    return { ok: false, output: `could not run ${line}: ${errorText(error)}` };
  }
}
