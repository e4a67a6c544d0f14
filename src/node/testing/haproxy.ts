/**
 * Test helper: a real HAProxy in front of test servers, its configuration generated from the example shipped in
 * `examples/cluster/haproxy.cfg` (the `bind` line, the `server` lines and the check timing replaced; everything else
 * as shipped), so that what the tests use is what the deployment doc tells people to run. Runs `haproxy -W -db -f`
 * as a child (master-worker, in the foreground), with an admin socket in its temporary directory to read the
 * servers' states; `reload` re-reads a new server list (SIGUSR2), `stop` ends it. For tests only (not shipped).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { repoRoot } from "../../protocol/testing/repo.js";
import { freePort, mustRunServices } from "./services.js";

/** The shipped example the configuration is generated from. */
export const HAPROXY_TEMPLATE = path.join(repoRoot, "examples", "cluster", "haproxy.cfg");

/** `haproxy` on the PATH, or `ACPKIT_HAPROXY`. */
export const HAPROXY = process.env.ACPKIT_HAPROXY ?? "haproxy";

/** One node behind the balancer. */
export interface HaproxyServer {
  /** The server's name in HAProxy (default `node1`, `node2`, ... by position). */
  readonly name?: string;
  readonly host?: string;
  readonly port: number;
}

export interface HaproxyConfigOptions {
  /** Where the balancer listens. */
  readonly bind: { readonly host: string; readonly port: number };
  readonly servers: readonly HaproxyServer[];
  /** The health check's path (default: the template's, `/readyz`). */
  readonly healthPath?: string;
  /** `inter`, `fastinter` and `downinter` of the checks (default 200 ms: tests should not wait seconds). */
  readonly checkIntervalMs?: number;
  /** The admin socket to add to `global` (the harness reads server states through it). */
  readonly adminSocket?: string;
}

/** Why HAProxy cannot be run here, or undefined. Throws where the tests must run (Linux CI). */
export function haproxyUnavailable(): string | undefined {
  const result = spawnSync(HAPROXY, ["-v"], { encoding: "utf8" });
  const reason =
    result.error !== undefined || result.status !== 0
      ? `${HAPROXY} cannot be run (${result.error?.message ?? `exit ${result.status}`}); apt-get install haproxy`
      : undefined;
  if (reason !== undefined && mustRunServices())
    throw new Error(`HAProxy tests must run here (CI on Linux), but ${reason}`);
  return reason;
}

/**
 * The template with the `bind` line, the block of `server` lines and the check timing replaced. Throws when the
 * template no longer has exactly one of each: the example and the harness must change together.
 */
export function haproxyConfig(template: string, options: HaproxyConfigOptions): string {
  if (options.servers.length === 0) throw new Error("HAProxy needs at least one server");
  let config = replaceOnce(template, /^([ \t]*)bind \S+$/m, (indent) => `${indent}bind ${address(options.bind)}`);
  const serverLines = /^([ \t]*)server \S+ \S+ check\n(?:\1server \S+ \S+ check\n)*/m;
  config = replaceOnce(config, serverLines, (indent) =>
    options.servers
      .map(
        (server, index) =>
          `${indent}server ${server.name ?? `node${index + 1}`} ${address({ host: server.host ?? "127.0.0.1", port: server.port })} check\n`,
      )
      .join(""),
  );
  const every = `${options.checkIntervalMs ?? 200}ms`;
  config = replaceOnce(
    config,
    /^([ \t]*)default-server inter \S+ fastinter \S+ downinter \S+/m,
    (indent) => `${indent}default-server inter ${every} fastinter ${every} downinter ${every}`,
  );
  if (options.healthPath !== undefined)
    config = replaceOnce(
      config,
      /^([ \t]*)option httpchk GET \S+$/m,
      (indent) => `${indent}option httpchk GET ${options.healthPath}`,
    );
  if (options.adminSocket !== undefined)
    config = replaceOnce(
      config,
      /^global\n/m,
      () => `global\n    stats socket ${options.adminSocket} mode 600 level admin\n`,
    );
  return config;
}

/** A running HAProxy. */
export interface TestHaproxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  readonly configFile: string;
  /** What HAProxy wrote to stderr so far (warnings, alerts). */
  readonly output: () => string;
  /** Each server's state from the admin socket: `UP`, `DOWN`, `MAINT`, `UP 1/2` (going down), ... */
  serverStates(): Promise<Record<string, string>>;
  /** Resolves once `name` is in `state` (`UP` or `DOWN`); rejects after `timeoutMs` (default 15 s). */
  waitForServer(name: string, state: "UP" | "DOWN", timeoutMs?: number): Promise<void>;
  /** Rewrites the configuration with `servers` and reloads it (SIGUSR2 to the master); resolves once it is live. */
  reload(servers: readonly HaproxyServer[]): Promise<void>;
  /** Stops HAProxy (SIGTERM: connections closed at once) and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Starts HAProxy on a free port of 127.0.0.1 in front of `servers`, configured from the shipped template. Call
 * `haproxyUnavailable()` first and skip with its reason when it gives one. Resolves once it accepts connections.
 */
export async function startTestHaproxy(
  options: Omit<HaproxyConfigOptions, "bind" | "adminSocket">,
): Promise<TestHaproxy> {
  const dir = mkdtempSync(path.join(tmpdir(), "acpkit-haproxy-"));
  const configFile = path.join(dir, "haproxy.cfg");
  const adminSocket = path.join(dir, "admin.sock");
  const port = await freePort();
  const template = readFileSync(HAPROXY_TEMPLATE, "utf8");
  const write = (servers: readonly HaproxyServer[]) =>
    writeFileSync(
      configFile,
      haproxyConfig(template, { ...options, servers, bind: { host: "127.0.0.1", port }, adminSocket }),
    );
  write(options.servers);
  const check = spawnSync(HAPROXY, ["-c", "-f", configFile], { encoding: "utf8" });
  if (check.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`the generated HAProxy configuration is invalid:\n${check.stdout}${check.stderr}`);
  }

  const child = spawn(HAPROXY, ["-W", "-db", "-f", configFile], { stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  installExitHook();
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = once(child, "exit");
  let stopped = false;

  const adminCommand = (command: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const socket = connect(adminSocket);
      let answer = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (answer += chunk));
      socket.on("end", () => resolve(answer));
      socket.on("error", reject);
      socket.write(`${command}\n`);
    });

  const serverStates = async (): Promise<Record<string, string>> => {
    const csv = await adminCommand("show stat");
    const [header, ...rows] = csv.split("\n").filter((line) => line.length > 0);
    const columns = header!.replace(/^# /, "").split(",");
    const [px, sv, status] = ["pxname", "svname", "status"].map((name) => columns.indexOf(name));
    const states: Record<string, string> = {};
    for (const row of rows) {
      const fields = row.split(",");
      if (fields[px!] === "acp_nodes" && fields[sv!] !== "BACKEND") states[fields[sv!]!] = fields[status!]!;
    }
    return states;
  };

  const ready = async (what: string, predicate: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`HAProxy exited (${child.exitCode}) while waiting for ${what}:\n${output}`);
      if (await predicate().catch(() => false)) return;
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; HAProxy said:\n${output}`);
      await sleep(50);
    }
  };

  const haproxy: TestHaproxy = {
    url: `http://127.0.0.1:${port}`,
    port,
    configFile,
    output: () => output,
    serverStates,
    waitForServer: (name, state, timeoutMs) =>
      ready(
        `server ${name} to be ${state}`,
        async () => (await serverStates())[name]?.split(" ")[0] === state,
        timeoutMs,
      ),
    reload: async (servers) => {
      write(servers);
      const names = servers.map((server, index) => server.name ?? `node${index + 1}`).sort();
      child.kill("SIGUSR2");
      await ready("the reloaded configuration", async () => {
        const states = Object.keys(await serverStates()).sort();
        return JSON.stringify(states) === JSON.stringify(names);
      });
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      live.delete(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    await ready("HAProxy to listen", () => canConnect(port));
    await ready(
      "the admin socket",
      async () => existsSync(adminSocket) && Object.keys(await serverStates()).length > 0,
    );
  } catch (error) {
    await haproxy.stop();
    throw error;
  }
  return haproxy;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.on("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const child of live) child.kill("SIGKILL");
  });
}

function address(where: { readonly host: string; readonly port: number }): string {
  return where.host.includes(":") ? `[${where.host}]:${where.port}` : `${where.host}:${where.port}`;
}

function replaceOnce(text: string, pattern: RegExp, replacement: (indent: string) => string): string {
  const global = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
  const matches = [...text.matchAll(global)];
  if (matches.length !== 1)
    throw new Error(
      `${HAPROXY_TEMPLATE}: expected exactly one match of ${pattern} (found ${matches.length}); ` +
        "the example and src/node/testing/haproxy.ts must change together",
    );
  return text.replace(pattern, (_match, ...groups: unknown[]) =>
    replacement(typeof groups[0] === "string" ? groups[0] : ""),
  );
}
