/**
 * `acp inspect`: starts the inspector's server (inspect-server.ts), prints its URL, and runs what it inspects:
 * - an agent command: the page drives it, one agent process per lane the page opens;
 * - `--url`: the page drives a remote agent through the inspector;
 * - `--tap`: the inspector is an editor's agent command: bytes pass through unchanged (the tap's proxy), a copy goes
 *   to the page; the URL goes to stderr (stdout is the protocol) and to `--url-file`;
 * - `--cassette`: the page opens with a recorded conversation (replayable against the agent command, if given);
 * - `--attach`: an observer of a session another client drives (needs shared sessions: observer-seam.ts).
 * It runs until SIGINT/SIGTERM/SIGHUP (or, with `--tap`, until the agent exits).
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { generateToken } from "@acpkit/sdk/node";
import { runTap, type TapExit } from "../tap/tap-proxy.js";
import { bridgeAgent, type PageSocket } from "./agent-bridge.js";
import type { Hello, LaneRole, PageMessage, ServerMessage } from "./feed-protocol.js";
import { HostService } from "./host-service.js";
import { LaneHub } from "./lane-hub.js";
import { OBSERVER_UNAVAILABLE, observeSession, type ObserverSource } from "./observer-seam.js";
import { loadPageAssets, type PageAssets } from "./page-html.js";
import { bridgeRemote } from "./remote-bridge.js";
import { startInspectServer, type InspectServer } from "./inspect-server.js";
import { runCheck } from "./check-runner.js";

export interface InspectOptions {
  host: string;
  port: number;
  token?: string;
  open: boolean;
  /** The agent's command line (driven, or tapped with `tap`). */
  agent?: readonly string[];
  tap: boolean;
  url?: string;
  remoteToken?: string;
  profile?: "websocket" | "http";
  cassette?: string;
  attach?: { url: string; sessionId: string };
  urlFile?: string;
  allowHosts?: readonly string[];
  cwd: string;
  version: string;
  /** How to run `acp` itself (for `acp check agent` from the page). */
  acpArgv: readonly string[];
}

export interface InspectIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Resolves when the inspector should stop (a signal); default: SIGINT, SIGTERM or SIGHUP. */
  stopped?: Promise<void>;
  /** The page bundle (tests may pass their own). */
  assets?: PageAssets;
  /** Where observer lanes come from (shared sessions); none exists yet. */
  observerSource?: ObserverSource;
  /** Called once the server listens. */
  onListening?: (server: InspectServer) => void;
}

/** Thrown for what the options ask that cannot be done; the command prints it and exits 2. */
export class InspectUsageError extends Error {
  override readonly name = "InspectUsageError";
}

export async function runInspect(options: InspectOptions, io: InspectIo): Promise<number> {
  if (options.attach && !io.observerSource) throw new InspectUsageError(OBSERVER_UNAVAILABLE);
  if (options.attach && io.observerSource?.probe) {
    try {
      await io.observerSource.probe(options.attach.url, options.attach.sessionId);
    } catch (error) {
      throw new InspectUsageError(`cannot attach to ${options.attach.sessionId}: ${(error as Error).message}`);
    }
  }
  const assets = io.assets ?? loadPageAssets();
  let cassette: Hello["cassette"];
  if (options.cassette !== undefined) {
    try {
      cassette = { name: basename(options.cassette), text: readFileSync(options.cassette, "utf8") };
    } catch (error) {
      throw new InspectUsageError(`cannot read the cassette ${options.cassette}: ${(error as Error).message}`);
    }
  }
  const token = options.token ?? generateToken();
  const hub = new LaneHub();
  const broadcast = (message: ServerMessage) => hub.broadcast(message);
  const host = new HostService(options.cwd, broadcast);
  const driven = !options.tap && (options.agent !== undefined || options.url !== undefined);
  const mode: Hello["mode"] = options.tap
    ? "tap"
    : options.url !== undefined
      ? "url"
      : options.agent !== undefined
        ? cassette
          ? "cassette"
          : "agent"
        : cassette
          ? "cassette"
          : "none";
  const hello = (): Hello => ({
    type: "hello",
    version: options.version,
    mode,
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.url !== undefined ? { url: options.url } : {}),
    cwd: options.cwd,
    canDrive: driven,
    canCheck: !options.tap && options.agent !== undefined,
    ...(cassette ? { cassette } : {}),
    observe: io.observerSource ? { available: true, reason: "" } : { available: false, reason: OBSERVER_UNAVAILABLE },
  });

  let laneCount = 0;
  const openLane = driven
    ? (socket: PageSocket, role: LaneRole, clientKey: string) => {
        laneCount++;
        const what = options.url ?? basename(options.agent![0]!);
        const lane = hub.open(role, `${role === "replay" ? "replay" : "client"} ${laneCount} → ${what}`, clientKey);
        const run =
          options.url !== undefined
            ? bridgeRemote(socket, lane, {
                url: options.url,
                ...(options.remoteToken !== undefined ? { token: options.remoteToken } : {}),
                ...(options.profile !== undefined ? { profile: options.profile } : {}),
              })
            : bridgeAgent(socket, lane, { argv: options.agent!, cwd: options.cwd });
        void run.finally(() => host.laneClosed(lane.info.id));
      }
    : undefined;

  const onPageMessage = (message: PageMessage, reply: (text: string) => void) => {
    const answer = (value: ServerMessage) => reply(JSON.stringify(value));
    if (message.type === "host") {
      void host
        .call(message.lane, message.method, message.params)
        .then((outcome) => answer({ type: "host-result", id: message.id, ...outcome }));
    } else if (message.type === "check") {
      if (options.tap || options.agent === undefined) {
        answer({ type: "check-result", id: message.id, error: "there is no agent command to check" });
        return;
      }
      void runCheck({ acpArgv: options.acpArgv, agent: options.agent, cwd: options.cwd, only: message.only }).then(
        (outcome) => answer({ type: "check-result", id: message.id, ...outcome }),
      );
    }
  };

  const server = await startInspectServer({
    host: options.host,
    port: options.port,
    token,
    ...(options.allowHosts ? { allowedHosts: options.allowHosts } : {}),
    assets,
    hub,
    hello,
    ...(openLane ? { openLane } : {}),
    onPageMessage,
  });
  io.onListening?.(server);
  const say = options.tap ? io.stderr : io.stdout;
  say(`${server.url}\n`);
  if (!options.tap) io.stderr(`acp inspect: open ${server.url} in a browser (Ctrl-C stops the inspector)\n`);
  if (options.urlFile !== undefined) writeFileSync(options.urlFile, `${server.url}\n`, { mode: 0o600 });
  if (options.open) openBrowser(server.url, io.stderr);

  if (options.attach && io.observerSource) {
    void observeSession(hub, io.observerSource, options.attach.url, options.attach.sessionId).catch((error) =>
      io.stderr(`acp inspect: ${(error as Error).message}\n`),
    );
  }

  try {
    if (options.tap) {
      const lane = hub.open("tap", `editor ⇄ ${basename(options.agent![0]!)}`);
      let exit: TapExit;
      try {
        exit = await runTap({
          argv: options.agent!,
          tool: { name: "acp inspect", version: options.version },
          observer: { bytes: (from, chunk) => lane.bytes(from, chunk), end: (from) => lane.end(from) },
          onStderr: (chunk) => {
            for (const line of chunk.toString("utf8").split("\n")) if (line !== "") lane.stderr(line);
          },
        });
      } finally {
        lane.close("the editor's conversation ended");
      }
      if (exit.signal !== null) return 128;
      return exit.code ?? 1;
    }
    await (io.stopped ?? signalled());
    return 0;
  } finally {
    await host.close();
    await server.close();
  }
}

function signalled(): Promise<void> {
  return new Promise((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => resolve());
  });
}

function openBrowser(url: string, stderr: (text: string) => void): void {
  const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer.exe" : "xdg-open";
  try {
    const child = spawn(command, [url], { stdio: "ignore", detached: true });
    child.on("error", (error) =>
      stderr(`acp inspect: could not open a browser (${error.message}); open the URL yourself\n`),
    );
    child.unref();
  } catch (error) {
    stderr(`acp inspect: could not open a browser (${(error as Error).message}); open the URL yourself\n`);
  }
}
