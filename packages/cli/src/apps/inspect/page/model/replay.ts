/**
 * Replays the client's side of a cassette against the live agent, in the page: the library's `replayClient` plays
 * a `ScriptPeer` (over a socket to the inspector's `/acp?role=replay`, adapted to byte streams) and reports where
 * the agent's frames differ from the recording. The replay's own traffic shows up as a lane of its own.
 */
import { bearerSubprotocol, WEBSOCKET_SUBPROTOCOL } from "@acpkit/sdk/remote";
import { replayClient, scriptPeerOverWeb, type Cassette, type ReplayResult } from "@acpkit/sdk/wire";

export async function replayAgainstAgent(
  cassette: Cassette,
  options: { host: string; token: string; cwd: string; timeoutMs?: number },
): Promise<ReplayResult> {
  const key = `replay${Date.now().toString(36)}`;
  const socket = new WebSocket(`ws://${options.host}/acp?client=${key}&role=replay`, [
    WEBSOCKET_SUBPROTOCOL,
    bearerSubprotocol(options.token),
  ]);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const opened = new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error("the inspector refused the replay's connection"));
  });
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      socket.addEventListener("message", (event) => {
        if (typeof event.data === "string") controller.enqueue(encoder.encode(`${event.data}\n`));
      });
      socket.addEventListener("close", () => {
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
    },
  });
  let pending = "";
  const output = new WritableStream<Uint8Array>({
    async write(chunk) {
      await opened;
      pending += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = pending.indexOf("\n")) !== -1) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (line.trim() !== "") socket.send(line);
      }
    },
  });
  await opened;
  const peer = scriptPeerOverWeb(input, output, { side: "client" });
  try {
    return await replayClient(cassette, peer, { cwd: options.cwd, timeoutMs: options.timeoutMs ?? 10_000 });
  } finally {
    socket.close(1000, "replay done");
  }
}
