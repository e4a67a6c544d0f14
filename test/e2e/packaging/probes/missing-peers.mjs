// What the features built on optional peers do when those are not installed: WebSocket (connectRemote to a ws://
// URL, nodeWebSocket, listenAcp) needs `ws`; MCP servers (createMcpConnector) need the MCP SDK. Prints, per feature,
// the error it gave ({ name, kind, message, missing }) or { ok: true }, and the MCP server's status, as JSON.
import process from "node:process";
import { fileURLToPath, URL } from "node:url";
import {
  connectRemote,
  createMcpConnector,
  listenAcp,
  nodeWebSocket,
  OptionalDependencyMissingError,
  stdioAgentConnector,
} from "@acpkit/sdk/node";

const argv = [process.execPath, fileURLToPath(new URL("./examples/toolkit-agent.js", import.meta.url))];
const result = {};
async function attempt(name, run) {
  try {
    const value = await run();
    result[name] = { ok: true };
    await value?.close?.({ graceMs: 0 });
  } catch (error) {
    result[name] = {
      name: error.name,
      kind: error.kind,
      message: error.message,
      missing: error instanceof OptionalDependencyMissingError,
      packageName: error.packageName,
    };
  }
}
await attempt("connectRemote", () => connectRemote("ws://127.0.0.1:9/acp"));
await attempt("nodeWebSocket", () => {
  const socket = new nodeWebSocket("ws://127.0.0.1:9/acp");
  socket.on?.("error", () => {});
  socket.terminate?.();
});
await attempt("listenAcp", () => listenAcp({ agent: stdioAgentConnector({ argv }) }));
const tools = await createMcpConnector().connect(
  [{ name: "probe", command: process.execPath, args: ["-e", ""], env: [] }],
  { sessionId: "s", cwd: process.cwd() },
);
result.mcp = tools.servers[0];
await tools.close();
process.stdout.write(JSON.stringify(result));
