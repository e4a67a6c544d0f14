/**
 * Remote ACP servers for the tests, as real child processes on 127.0.0.1. The server implementation is a
 * parameter: `official` (the official SDK 2.4.0 `AcpServer` through its Node adapter) and `acpkit` (acpkit's
 * `AcpServer` and Node adapter through the drop-in entries, in the same fixture); every test built on `startServer`
 * runs against each.
 *
 * Each server logs one JSON line per finished request on stdout; `requests` collects them and `until` waits for
 * one, so tests observe DELETEs, cookies and headers on the wire.
 *
 * To add an implementation: a fixture under test/e2e/fixtures that takes the same flags as
 * `remote-server.ts` (`--serve --port N --data-dir DIR --cookie NAME=VALUE --token T --no-websocket
 * --agent reference|fast`), hosts the reference agent the same way, prints `{"listening":{"port":N}}` first and one
 * `{"request":{...}}` line per finished request (the `LoggedRequest` shape), and an entry in `SERVER_FIXTURES`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fixturePath, track } from "../../interop/support/spawn.js";

/** Which server implementation hosts the agent. */
export type ServerImpl = "official" | "acpkit";

/** The fixture (under dist/test/e2e/fixtures) that runs each implementation, and its arguments. */
export const SERVER_FIXTURES: Record<ServerImpl, readonly [string, ...string[]]> = {
  official: ["remote-server", "--impl", "official"],
  acpkit: ["remote-server", "--impl", "acpkit"],
};

export const SERVER_IMPLS = Object.keys(SERVER_FIXTURES) as ServerImpl[];

/** One request as the server saw it. */
export interface LoggedRequest {
  method: string;
  upgrade: string | null;
  connectionId: string | null;
  sessionId: string | null;
  cookie: string | null;
  authorization: string | null;
  extra: string | null;
  /** `Acp-Protocol-Version`. */
  protocolVersion: string | null;
  status: number | null;
}

export interface ServerOptions {
  /** Listen on this port (0: any free one). */
  port?: number;
  /** The reference agent's data directory (sessions persist there). */
  dataDir?: string;
  /** `NAME=VALUE` set as a cookie on every answer. */
  cookie?: string;
  /** Require `Authorization: Bearer <token>`. */
  token?: string;
  /** Offer the WebSocket upgrade (default true). */
  websocket?: boolean;
}

export interface RunningServer {
  readonly impl: ServerImpl;
  readonly port: number;
  readonly child: ChildProcess;
  readonly requests: LoggedRequest[];
  /** `http://127.0.0.1:PORT/acp` or `ws://...`. */
  url(scheme?: "http" | "ws"): string;
  /** Resolves with the first logged request (from index `from`) that passes `test`. */
  until(test: (request: LoggedRequest) => boolean, what: string, ms?: number, from?: number): Promise<LoggedRequest>;
  stderr(): string;
  /** Kills the server (SIGKILL: as if the machine went away) and waits for it to exit. */
  kill(): Promise<void>;
  /** Stops it (SIGTERM, then SIGKILL after 3 s). */
  stop(): Promise<void>;
}

export async function startServer(impl: ServerImpl, options: ServerOptions = {}): Promise<RunningServer> {
  const [fixture, ...fixtureArgs] = SERVER_FIXTURES[impl];
  const args = [fixturePath(fixture), ...fixtureArgs, "--serve", "--port", String(options.port ?? 0)];
  if (options.dataDir) args.push("--data-dir", options.dataDir);
  if (options.cookie) args.push("--cookie", options.cookie);
  if (options.token) args.push("--token", options.token);
  if (options.websocket === false) args.push("--no-websocket");
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  track(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const requests: LoggedRequest[] = [];
  const waiters = new Set<() => void>();
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (text: string) => {
    stderr += text;
    if (process.env.INTEROP_VERBOSE === "1") process.stderr.write(text);
  });
  let buffered = "";
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the ${impl} server exited (${code}) before listening: ${stderr}`)));
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (text: string) => {
      buffered += text;
      let newline = buffered.indexOf("\n");
      while (newline !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf("\n");
        const value = JSON.parse(line) as { listening?: { port: number }; request?: LoggedRequest };
        if (value.listening) resolve(value.listening.port);
        if (value.request) {
          requests.push(value.request);
          for (const wake of [...waiters]) wake();
        }
      }
    });
  });
  const until = (test: (request: LoggedRequest) => boolean, what: string, ms = 10_000, from = 0) =>
    new Promise<LoggedRequest>((resolve, reject) => {
      const check = () => {
        const found = requests.slice(from).find(test);
        if (found === undefined) return false;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(
          new Error(
            `timed out after ${ms} ms waiting for the server to see ${what}; it saw: ` +
              `${JSON.stringify(requests.slice(from))}`,
          ),
        );
      }, ms);
      if (!check()) waiters.add(check);
    });
  let stopping: Promise<void> | undefined;
  return {
    impl,
    port,
    child,
    requests,
    url: (scheme = "http") => `${scheme}://127.0.0.1:${port}/acp`,
    until,
    stderr: () => stderr,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
        await exited;
        clearTimeout(timer);
      })()),
  };
}
