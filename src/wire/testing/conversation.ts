/** Test helper: builds conversations frame by frame for the rule engine. */
import { WireChecker, type WireCheckerOptions } from "../wire-checker.js";
import type { Finding } from "../rules/types.js";

export const CWD = "/work/project";

/** A conversation driver with a clock that advances 10 ms per frame. */
export function conversation(options: WireCheckerOptions = {}) {
  const checker = new WireChecker(options);
  let time = 1_000_000;
  let nextId = 0;
  const c = {
    checker,
    /** Advances the clock. */
    wait(ms: number) {
      time += ms;
      return c;
    },
    client(message: Record<string, unknown>) {
      checker.message("client", { jsonrpc: "2.0", ...message }, (time += 10));
      return c;
    },
    agent(message: Record<string, unknown>) {
      checker.message("agent", { jsonrpc: "2.0", ...message }, (time += 10));
      return c;
    },
    raw(from: "agent" | "client", line: string) {
      checker.frame(from, { kind: "unparsable", line }, (time += 10));
      return c;
    },
    /** initialize + session/new (session "s1" in CWD). */
    setUp(
      clientCapabilities: Record<string, unknown> = { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      agentCapabilities: Record<string, unknown> = { loadSession: true, sessionCapabilities: { resume: {} } },
    ) {
      const init = ++nextId;
      c.client({ id: init, method: "initialize", params: { protocolVersion: 1, clientCapabilities } });
      c.agent({ id: init, result: { protocolVersion: 1, agentCapabilities } });
      const session = ++nextId;
      c.client({ id: session, method: "session/new", params: { cwd: CWD, mcpServers: [] } });
      c.agent({ id: session, result: { sessionId: "s1" } });
      return c;
    },
    id() {
      return ++nextId;
    },
    chunk(text: string, sessionId = "s1") {
      return c.agent({
        method: "session/update",
        params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
      });
    },
    rules(): string[] {
      return checker.findings.map((f) => f.rule);
    },
    end(): Finding[] {
      return checker.end();
    },
  };
  return c;
}
