/**
 * Test helper: a real PostgreSQL 15 server for one test, in a temporary directory: a fresh cluster (a copy of one
 * `initdb` made once per machine, see `copyTemplate`); `pg_ctl` starts, restarts and
 * stops it; it listens on a free TCP port on 127.0.0.1 (password authentication, scram-sha-256, a random password per
 * server) and on a unix socket in the temporary directory (trust). When the
 * tests run as root (PostgreSQL refuses root), the binaries run as the `postgres` system user, which Debian's
 * `postgresql` package creates, and the directory is handed to it. Never a system service. For tests only (not
 * shipped).
 *
 * `postgresUnavailable()` says why a server cannot be had here (the caller skips with that reason); where the tests
 * must run (`CI=true` on Linux, or `ACPKIT_REQUIRE_SERVICES=1`), it throws instead, so a missing package fails CI.
 */
import { spawn, spawnSync, type SpawnOptions } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, mustRunServices } from "./services.js";

/** Where Debian's `postgresql-15` puts the server programs; `ACPKIT_PG_BIN` overrides. */
export const POSTGRES_BIN = process.env.ACPKIT_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** Bumped when the template's `initdb` arguments change, so that an old template is not reused. */
const TEMPLATE_VERSION = 1;

/** A running (or stopped, between `stop` and `start`) test server. */
export interface TestPostgres {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres`: TCP, password authentication. */
  readonly connectionString: string;
  /** The same database through the unix socket (trust authentication, no password). */
  readonly socketConnectionString: string;
  readonly host: "127.0.0.1";
  readonly port: number;
  /** The unix socket directory (pass as `host` to `pg`). */
  readonly socketDir: string;
  readonly user: "postgres";
  readonly password: string;
  readonly database: "postgres";
  readonly dataDir: string;
  /** The server's log file (its contents are added to the error when it fails to start). */
  readonly logFile: string;
  /** A connection string to another database on this server, created by `createDatabase`. */
  connectionStringFor(database: string): string;
  /** Creates an empty database (for tests that must not see each other's tables). */
  createDatabase(name: string): Promise<void>;
  /** Runs one SQL command through `psql` on the socket, as the superuser; resolves with its output. */
  psql(sql: string, database?: string): Promise<string>;
  /** `pg_ctl restart`: every connection is cut (`57P01` or a reset), and the server is back when this resolves. */
  restart(mode?: StopMode): Promise<void>;
  /** `pg_ctl stop`: `fast` (clients told, `57P01`) by default; `immediate` is a crash as far as clients can tell. */
  stop(mode?: StopMode): Promise<void>;
  /** `pg_ctl start` after `stop`. */
  start(): Promise<void>;
  /** Stops the server (immediately) and removes its directory. Safe to call twice. */
  close(): Promise<void>;
}

export type StopMode = "smart" | "fast" | "immediate";

/** Settings for `startTestPostgres`: extra `postgresql.conf` lines, e.g. `{ max_connections: "12" }`. */
export interface TestPostgresOptions {
  readonly settings?: Readonly<Record<string, string>>;
}

interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
}

/** Why a test PostgreSQL cannot be started here, or undefined when it can. Throws where the tests must run. */
export function postgresUnavailable(bin: string = POSTGRES_BIN): string | undefined {
  const reason = unavailableReason(bin);
  if (reason !== undefined && mustRunServices())
    throw new Error(
      `PostgreSQL tests must run here (CI on Linux), but ${reason}. Install it: apt-get install postgresql`,
    );
  return reason;
}

function unavailableReason(bin: string = POSTGRES_BIN): string | undefined {
  if (process.platform === "win32") return "the test PostgreSQL helper supports Linux and macOS only";
  for (const program of ["initdb", "pg_ctl", "postgres", "psql"]) {
    const file = program === "psql" ? psqlPath() : path.join(bin, program);
    if (!existsSync(file)) return `${file} is missing (apt-get install postgresql, or set ACPKIT_PG_BIN)`;
  }
  if (process.getuid?.() === 0 && systemUser("postgres") === undefined)
    return "the tests run as root and there is no 'postgres' user to run PostgreSQL as";
  return undefined;
}

function psqlPath(): string {
  const beside = path.join(POSTGRES_BIN, "psql");
  return existsSync(beside) ? beside : "/usr/bin/psql";
}

function systemUser(name: string): RunAs | undefined {
  const result = spawnSync("id", ["-u", name], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", name], { encoding: "utf8" });
  if (result.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(result.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Who runs the server programs: the `postgres` user when we are root, else ourselves. */
function runAs(): RunAs {
  return process.getuid?.() === 0 ? systemUser("postgres")! : {};
}

/** Servers not yet closed, stopped at exit even when a test forgets (a pg_ctl server outlives its parent). */
const live = new Set<TestPostgres>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const server of live) {
      spawnSync(path.join(POSTGRES_BIN, "pg_ctl"), ["stop", "-D", server.dataDir, "-m", "immediate", "-w"], {
        ...(runAs() as SpawnOptions),
        stdio: "ignore",
      });
      rmSync(path.dirname(server.dataDir), { recursive: true, force: true });
    }
  });
}

/**
 * Starts a fresh PostgreSQL server in a temporary directory. Call `postgresUnavailable()` first and skip with its
 * reason when it gives one. Resolves once the server accepts connections.
 */
export async function startTestPostgres(options: TestPostgresOptions = {}): Promise<TestPostgres> {
  const reason = unavailableReason();
  if (reason !== undefined) throw new Error(`cannot start a test PostgreSQL: ${reason}`);
  const who = runAs();
  const root = mkdtempSync(path.join(tmpdir(), "acpkit-pg-"));
  if (who.uid !== undefined) chownSync(root, who.uid, who.gid!);
  const dataDir = path.join(root, "data");
  const socketDir = path.join(root, "socket");
  const logFile = path.join(root, "server.log");
  const password = randomBytes(18).toString("base64url");
  mkdirSync(socketDir, { mode: 0o700 });
  if (who.uid !== undefined) chownSync(socketDir, who.uid, who.gid!);
  try {
    await copyTemplate(who, dataDir);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const port = await freePort();
  const settings: Record<string, string> = {
    listen_addresses: "'127.0.0.1'",
    port: String(port),
    unix_socket_directories: `'${socketDir}'`,
    // Test speed: a test server's durability against an OS crash does not matter (a process crash is still
    // survived: committed WAL is in the OS's cache). synchronous_commit stays on.
    fsync: "off",
    full_page_writes: "off",
    shared_buffers: "16MB",
    max_connections: "60",
    logging_collector: "off",
    ...options.settings,
  };
  writeFileSync(
    path.join(dataDir, "postgresql.auto.conf"),
    Object.entries(settings)
      .map(([key, value]) => `${key} = ${value}\n`)
      .join(""),
  );
  const pgCtl = (args: string[]): Promise<string> =>
    run(who, path.join(POSTGRES_BIN, "pg_ctl"), ["-D", dataDir, "-l", logFile, ...args]).catch((error: Error) => {
      const log = existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n") : "";
      throw new Error(`${error.message}\nserver log (${logFile}):\n${log}`, { cause: error });
    });
  const socketUrl = (database: string) =>
    `postgres://postgres@/${database}?host=${encodeURIComponent(socketDir)}&port=${port}`;
  let closed = false;
  const server: TestPostgres = {
    connectionString: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    socketConnectionString: socketUrl("postgres"),
    host: "127.0.0.1",
    port,
    socketDir,
    user: "postgres",
    password,
    database: "postgres",
    dataDir,
    logFile,
    connectionStringFor: (database) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    createDatabase: async (name) => {
      await server.psql(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    },
    psql: (sql, database = "postgres") =>
      run(
        who,
        psqlPath(),
        ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketDir, "-p", String(port)].concat([
          "-U",
          "postgres",
          "-d",
          database,
          "-c",
          sql,
        ]),
      ),
    restart: async (mode = "fast") => {
      await pgCtl(["restart", "-m", mode, "-w", "-t", "60"]);
    },
    stop: async (mode = "fast") => {
      await pgCtl(["stop", "-m", mode, "-w", "-t", "60"]);
    },
    start: async () => {
      await pgCtl(["start", "-w", "-t", "60"]);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      live.delete(server);
      await run(who, path.join(POSTGRES_BIN, "pg_ctl"), ["stop", "-D", dataDir, "-m", "immediate", "-w"]).catch(
        () => undefined,
      );
      rmSync(root, { recursive: true, force: true });
    },
  };
  installExitHook();
  live.add(server);
  try {
    await server.start();
    // The template's superuser has no password (it is shared); this server's is its own, set through the socket.
    await server.psql(`ALTER USER postgres PASSWORD '${password}'`);
  } catch (error) {
    await server.close();
    throw error;
  }
  return server;
}

/**
 * A fresh cluster's files, made once per machine and PostgreSQL build by `initdb` (a second of CPU and several of
 * disk waits, paid by every test file otherwise) and copied for each server: `<tmpdir>/acpkit-pg-template-<key>`,
 * owned by the user the servers run as. Made in a directory of its own and renamed into place, so that test files
 * starting servers at once never see half a template (the loser of the rename removes its copy and takes the
 * winner's).
 */
async function copyTemplate(who: RunAs, dataDir: string): Promise<void> {
  const initdb = path.join(POSTGRES_BIN, "initdb");
  const key = createHash("sha256")
    .update(`${initdb}\0${statSync(initdb).mtimeMs}\0${process.getuid?.() ?? ""}\0${TEMPLATE_VERSION}`)
    .digest("hex")
    .slice(0, 16);
  const template = path.join(tmpdir(), `acpkit-pg-template-${key}`);
  if (!existsSync(path.join(template, "PG_VERSION"))) {
    const making = mkdtempSync(path.join(tmpdir(), "acpkit-pg-template-new-"));
    if (who.uid !== undefined) chownSync(making, who.uid, who.gid!);
    try {
      await run(who, initdb, [
        "-D",
        path.join(making, "data"),
        "-U",
        "postgres",
        "--auth-local=trust",
        "--auth-host=scram-sha-256",
        "--no-locale",
        "-E",
        "UTF8",
        "--no-sync",
      ]);
      renameSync(path.join(making, "data"), template);
    } catch (error) {
      if (!existsSync(path.join(template, "PG_VERSION"))) throw error;
    } finally {
      rmSync(making, { recursive: true, force: true });
    }
  }
  await run(who, "cp", ["-a", template, dataDir]);
}

/** Runs a program (as `who`), resolving with its stdout; rejects with its stderr when it fails. */
function run(who: RunAs, file: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      ...(who as SpawnOptions),
      cwd: tmpdir(),
      // pg_ctl's server inherits these: keep it off our stdio so that it never holds a test's pipes open.
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C", LC_ALL: "C", TZ: "UTC" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code === 0) resolve(stdout);
      else
        reject(
          new Error(
            `${path.basename(file)} ${args.join(" ")} failed (${signal ?? `exit ${code}`}): ${stderr.trim() || stdout.trim()}`,
          ),
        );
    });
  });
}
