/**
 * A small scripted agent and a client with an in-memory file system and terminals, for the app tests. The agent's
 * prompt text picks a script: "stream N", "permission", "fs", "terminal", "wait", "late N", "unknown".
 */
import { agent, type AgentContext } from "../../agent/agent-app.js";
import { client } from "../client-app.js";
import { RequestError } from "../../jsonrpc/index.js";
import type { AppOptions } from "../../acp/app-types.js";
import type { ContentBlock, SessionUpdate } from "../../protocol/index.js";

export const PROTOCOL_VERSION_1 = 1;

function text(blocks: ContentBlock[]): string {
  const first = blocks[0];
  return first?.type === "text" ? first.text : "";
}

function chunk(value: string): SessionUpdate {
  return { sessionUpdate: "agent_message_chunk", content: { type: "text", text: value } };
}

async function say(client: AgentContext, sessionId: string, value: string): Promise<void> {
  await client.notify("session/update", { sessionId, update: chunk(value) });
}

/** A deterministic agent: see the module comment for its prompt scripts. */
export function demoAgent(options: AppOptions = {}) {
  let sessions = 0;
  const cancels = new Map<string, () => void>();
  return agent({ name: "demo-agent", ...options })
    .onRequest("initialize", () => ({ protocolVersion: PROTOCOL_VERSION_1, agentCapabilities: { loadSession: true } }))
    .onRequest("session/new", async ({ client }) => {
      const sessionId = `session-${++sessions}`;
      // Sent before the response: an ActiveSession must still see it.
      await client.notify("session/update", {
        sessionId,
        update: { sessionUpdate: "available_commands_update", availableCommands: [] },
      });
      return {
        sessionId,
        modes: { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }] },
        _meta: { demo: true },
      };
    })
    .onRequest("session/load", async ({ params, client }) => {
      await say(client, params.sessionId, `replayed ${params.sessionId}`);
    })
    .onNotification("session/cancel", ({ params }) => cancels.get(params.sessionId)?.())
    .onRequest("session/prompt", async ({ params, client, signal }) => {
      const { sessionId } = params;
      const [command, argument] = text(params.prompt).split(" ");
      switch (command) {
        case "stream":
          for (let i = 0; i < Number(argument); i++) await say(client, sessionId, `${i} `);
          return { stopReason: "end_turn" };
        case "permission": {
          const answer = await client.request("session/request_permission", {
            sessionId,
            toolCall: { toolCallId: "call-1", title: "Edit a file" },
            options: [
              { optionId: "yes", name: "Allow", kind: "allow_once" },
              { optionId: "no", name: "Reject", kind: "reject_once" },
            ],
          });
          await say(client, sessionId, answer.outcome.outcome === "selected" ? answer.outcome.optionId : "cancelled");
          return { stopReason: "end_turn" };
        }
        case "fs": {
          const { content } = await client.request("fs/read_text_file", { sessionId, path: "/work/in.txt" });
          await client.request("fs/write_text_file", {
            sessionId,
            path: "/work/out.txt",
            content: content.toUpperCase(),
          });
          await say(client, sessionId, content);
          return { stopReason: "end_turn" };
        }
        case "terminal": {
          const terminal = await client.createTerminal({ sessionId, command: "echo", args: ["hi"] });
          const before = await terminal.currentOutput();
          const exit = await terminal.waitForExit();
          await terminal.kill();
          const after = await terminal.currentOutput();
          await terminal[Symbol.asyncDispose]();
          await say(
            client,
            sessionId,
            JSON.stringify({ id: terminal.id, before: before.output, exit, after: after.exitStatus }),
          );
          return { stopReason: "end_turn" };
        }
        case "wait":
          // Ends on session/cancel (answers "cancelled") or on $/cancel_request (the signal aborts: throw).
          return await new Promise((resolve, reject) => {
            cancels.set(sessionId, () => resolve({ stopReason: "cancelled" }));
            signal.addEventListener("abort", () => reject(signal.reason), { once: true });
          });
        case "late":
          // Keeps streaming after its response.
          setTimeout(() => {
            for (let i = 0; i < Number(argument); i++) void say(client, sessionId, `late ${i}`);
          }, 1);
          return { stopReason: "end_turn" };
        case "unknown":
          await client.notify("session/update", {
            sessionId,
            update: { sessionUpdate: "future_update", detail: 42 } as never,
          });
          await say(client, sessionId, "known");
          return { stopReason: "end_turn" };
        default:
          throw RequestError.invalidParams({ prompt: command }, `unknown script "${command}"`);
      }
    });
}

/** What the demo client saw: files written, permission requests, terminal calls. */
export interface DemoClientLog {
  files: Map<string, string>;
  permissions: string[];
  terminalCalls: string[];
}

/** A client with an in-memory file system (`/work/in.txt` = "hello fs") and fake terminals; it allows permissions. */
export function demoClient(options: AppOptions = {}) {
  const log: DemoClientLog = { files: new Map([["/work/in.txt", "hello fs"]]), permissions: [], terminalCalls: [] };
  const app = client({ name: "demo-client", ...options })
    .onRequest("session/request_permission", ({ params }) => {
      log.permissions.push(params.toolCall.toolCallId);
      return { outcome: { outcome: "selected", optionId: params.options[0]!.optionId } };
    })
    .onRequest("fs/read_text_file", ({ params }) => {
      const content = log.files.get(params.path);
      if (content === undefined) throw RequestError.resourceNotFound(params.path);
      return { content };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      log.files.set(params.path, params.content);
    })
    .onRequest("terminal/create", ({ params }) => {
      log.terminalCalls.push(`create ${params.command}`);
      return { terminalId: "term-1" };
    })
    .onRequest("terminal/output", ({ params }) => {
      log.terminalCalls.push(`output ${params.terminalId}`);
      const exited = log.terminalCalls.includes("wait term-1");
      return { output: "hi\n", truncated: false, ...(exited ? { exitStatus: { exitCode: 0 } } : {}) };
    })
    .onRequest("terminal/wait_for_exit", ({ params }) => {
      log.terminalCalls.push(`wait ${params.terminalId}`);
      return { exitCode: 0 };
    })
    .onRequest("terminal/kill", ({ params }) => {
      log.terminalCalls.push(`kill ${params.terminalId}`);
    })
    .onRequest("terminal/release", ({ params }) => {
      log.terminalCalls.push(`release ${params.terminalId}`);
    });
  return { app, log };
}

/** The initialize request the tests send. */
export const initializeParams = {
  protocolVersion: PROTOCOL_VERSION_1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
};
