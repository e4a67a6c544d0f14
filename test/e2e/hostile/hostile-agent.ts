/**
 * A scripted hostile agent (a `ScriptPeer` over this process's stdio) for the hostile-peer suite. It answers
 * `initialize` and `session/new` properly, then misbehaves on `session/prompt` as its mode says. Does nothing unless
 * given `--mode NAME` (the test runner also loads this file).
 */
import { spawn } from "node:child_process";
import { scriptPeerOver } from "../../../src/entries/node.js";
import type { WireEvent } from "../../../src/wire/index.js";

const at = process.argv.indexOf("--mode");
const mode = at >= 0 ? process.argv[at + 1] : undefined;

if (mode !== undefined) {
  const peer = scriptPeerOver(process.stdin, process.stdout, { side: "agent" });
  const idOf = (event: WireEvent) => (event.value as { id: number | string }).id;
  const paramsOf = (event: WireEvent) => (event.value as { params: Record<string, unknown> }).params;
  const update = (sessionId: string, text: string) =>
    peer.notify("session/update", {
      sessionId,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
    });
  let prompts = 0;
  peer.onRequest((event) => {
    const method = (event.value as { method: string }).method;
    if (method === "initialize")
      return void peer.respond(event, { protocolVersion: 1, agentCapabilities: {}, authMethods: [] });
    if (method === "session/new") return void peer.respond(event, { sessionId: "s1" });
    if (method !== "session/prompt") return void peer.respondError(event, -32601, "Method not found");
    prompts++;
    const sessionId = paramsOf(event).sessionId as string;
    const id = JSON.stringify(idOf(event));
    const endTurn = `{"jsonrpc":"2.0","id":${id},"result":{"stopReason":"end_turn"}}\n`;
    switch (mode) {
      case "garbage":
        peer.sendRaw("this is not json\n");
        peer.sendRaw('{"jsonrpc":"2.0","id":\n');
        peer.sendRaw("\u0000\u00ff\ufffd binary\n");
        peer.sendRaw('[1,2,3]\n{"jsonrpc":"1.0","method":7}\n\n   \n');
        update(sessionId, "still here");
        peer.sendRaw(endTurn);
        return;
      case "ids":
        // A response to an id never used, the answer twice, and a request reusing the prompt's id.
        peer.sendRaw('{"jsonrpc":"2.0","id":987654,"result":{"stopReason":"end_turn"}}\n');
        peer.sendRaw('{"jsonrpc":"2.0","id":"nope","error":{"code":-32603,"message":"stray"}}\n');
        peer.sendRaw(endTurn);
        peer.sendRaw(endTurn);
        peer.sendRaw(`{"jsonrpc":"2.0","id":${id},"result":{"stopReason":"cancelled"}}\n`);
        return;
      case "huge": {
        // The answer is 3 MiB with its id after the body: the client (limit 1 MiB) must still tell the waiter.
        const pad = "z".repeat(3 * 1024 * 1024);
        peer.sendRaw(`{"jsonrpc":"2.0","result":{"stopReason":"end_turn","_meta":{"pad":"${pad}"}},"id":${id}}\n`);
        return;
      }
      case "never":
        update(sessionId, "thinking forever");
        return;
      case "flood": {
        for (let i = 0; i < 20_000; i++) update(sessionId, `${i},`);
        peer.sendRaw(endTurn);
        return;
      }
      case "drip": {
        const text = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"drip"}}}}\n${endTurn}`;
        let i = 0;
        const next = (): void => {
          if (i >= text.length) return;
          process.stdout.write(text[i++]!, () => setImmediate(next));
        };
        next();
        return;
      }
      case "die-mid-frame":
        process.stdout.write('{"jsonrpc":"2.0","id":' + id + ',"result":{"stopRea', () => process.exit(3));
        return;
      case "escape": {
        // A detached grandchild in its own session, still holding our stdout, then an answer.
        const marker = paramsOf(event)._meta as { marker: string } | undefined;
        const child = spawn("setsid", ["sh", "-c", `exec sleep 600 # ${marker?.marker ?? "hostile"}`], {
          stdio: ["ignore", "inherit", "ignore"],
          detached: true,
        });
        child.unref();
        peer.sendRaw(endTurn);
        return;
      }
      case "outside-roots": {
        const reads = ["/etc/passwd", "/../../etc/hostname", "relative/path", "/tmp/\u0000nul"];
        let pending = reads.length;
        const refusals: unknown[] = [];
        for (const path of reads) {
          void peer.request("fs/read_text_file", { sessionId, path }).response.then((answer) => {
            refusals.push((answer.value as { error?: unknown; result?: unknown }).error ?? { served: path });
            if (--pending === 0) {
              update(sessionId, JSON.stringify(refusals));
              peer.sendRaw(endTurn);
            }
          });
        }
        return;
      }
      default:
        peer.sendRaw(endTurn);
    }
  });
  void prompts;
}
