/**
 * A lane the page drives against a remote agent (`acp inspect --url`): the page's client socket bridged to the
 * agent's `/acp` endpoint over WebSocket or Streamable HTTP, through the library's remote client (`connectRemote`),
 * frames passed on with their exact text. The lane records each frame as a line, as it went over the remote
 * transport (one message per WebSocket frame or HTTP body; the lane shows them one a line).
 */
import { connectRemote } from "@acpkit/sdk/node";
import type { AnyMessage } from "@acpkit/sdk";
import type { RemoteProfile, RemoteStream } from "@acpkit/sdk/remote";
import type { LaneHandle } from "./lane-hub.js";
import { textOf, type PageSocket } from "./agent-bridge.js";

export interface RemoteBridgeOptions {
  url: string;
  token?: string;
  profile?: RemoteProfile;
}

/** Runs one driven lane against the remote agent until either end goes away. */
export async function bridgeRemote(socket: PageSocket, lane: LaneHandle, options: RemoteBridgeOptions): Promise<void> {
  const encoder = new TextEncoder();
  let socketOpen = true;
  const socketClosed = new Promise<void>((resolve) => {
    socket.on("close", () => {
      socketOpen = false;
      resolve();
    });
    socket.on("error", () => {});
  });
  const held: string[] = [];
  /** Set once the remote is reached: until then the page's frames are held. */
  const sink: { forward?: (text: string) => void } = {};
  socket.on("message", (data, isBinary) => {
    if (isBinary) return;
    const text = textOf(data);
    if (sink.forward) sink.forward(text);
    else held.push(text);
  });

  const fromAgent = (text: string) => {
    lane.bytes("agent", encoder.encode(`${text}\n`));
    if (socketOpen) socket.send(text);
  };
  let stream: RemoteStream;
  try {
    stream = await connectRemote(options.url, {
      ...(options.token !== undefined ? { token: options.token } : {}),
      ...(options.profile !== undefined ? { profile: options.profile } : {}),
      deliverText: fromAgent,
    });
  } catch (error) {
    const reason = `could not reach ${options.url}: ${(error as Error).message}`;
    lane.close(reason);
    socket.close(1011, reason.slice(0, 120));
    return;
  }
  lane.stderr(
    `(inspector) connected to ${stream.url} over ${stream.profile === "websocket" ? "WebSocket" : "Streamable HTTP"}`,
  );
  const link = stream.link;
  const remoteClosed = new Promise<string | undefined>((resolve) => {
    link.start({
      message: (value) => fromAgent(JSON.stringify(value)),
      problem: (problem) => lane.stderr(`(inspector) ${describeProblem(problem)}`),
      closed: (cause) => resolve(cause === undefined ? undefined : String((cause as Error).message ?? cause)),
    });
  });
  const forward = (text: string) => {
    lane.bytes("client", encoder.encode(`${text}\n`));
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      lane.stderr("(inspector) the page sent a frame that is not JSON; not passed on");
      return;
    }
    try {
      link.sendText(text, value as AnyMessage);
    } catch (error) {
      lane.stderr(`(inspector) ${(error as Error).message}`);
    }
  };
  for (const text of held.splice(0)) forward(text);
  sink.forward = forward;

  const reason = await Promise.race([socketClosed.then(() => "the page closed the lane"), remoteClosed]);
  lane.end("client");
  lane.end("agent");
  await link.close().catch(() => {});
  lane.close(reason ?? "the remote agent closed the connection");
  if (socketOpen) socket.close(1000, "the remote agent closed the connection");
}

function describeProblem(problem: unknown): string {
  const value = problem as { kind?: string; message?: string; error?: Error };
  return value.message ?? value.error?.message ?? value.kind ?? String(problem);
}
