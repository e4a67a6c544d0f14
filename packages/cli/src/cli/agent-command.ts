/**
 * `acp agent [flags]`: runs the reference agent on stdio. Flags (each also as `--flag=value`):
 * `--data-dir DIR` (else ACPKIT_DATA_DIR, else the per-user data directory), `--store postgres://...` (else
 * ACP_STORE: sessions in PostgreSQL instead of files; never echoed, its password masked), `--store-wait MS`,
 * `--model-url URL`, `--model NAME`, `--model-key KEY` (else ACP_MODEL_URL, ACP_MODEL, ACP_MODEL_KEY),
 * `--run-timeout MS`, `--grep-time-limit MS`, `--log-level LEVEL` (else ACP_LOG; debug, info, warn, error or
 * silent), `--unstable` (the unstable protocol). Bad flags print a message to stderr and exit 2.
 */
import { parseLogLevel } from "../apps/reference-agent/logger.js";
import {
  runReferenceAgent,
  SessionStoreUnavailable,
  type ReferenceAgentOptions,
} from "../apps/reference-agent/main.js";
import { resolveModelConfig } from "../apps/reference-agent/model/config.js";

export const AGENT_USAGE = `acp agent: the reference ACP agent on stdio (deterministic; a coding agent when given a model)

Usage:
  acp agent [--data-dir DIR | --store postgres://... [--store-wait MS]] [--model-url URL --model NAME [--model-key KEY]]
            [--run-timeout MS] [--grep-time-limit MS] [--log-level LEVEL] [--unstable]

  --data-dir DIR     where sessions are kept (default: $ACPKIT_DATA_DIR, else the per-user data directory)
  --store URL        keep sessions in PostgreSQL instead: postgres://user@host:port/database (or $ACP_STORE); keep
                     the password out of the command line: PGPASSWORD, ~/.pgpass, or $ACP_STORE
  --store-wait MS    a session open in another agent process: wait this long for it (default 12000, enough for
                     the lease of a process that died to lapse), then fail; 0 fails at once
  --store-lease MS   how long this process's hold on a session lasts unrenewed, so how soon another process may
                     take over the session of one that died (default 10000, or $ACP_STORE_LEASE; acp serve --cluster
                     sets it to its --lease)
  --model-url URL    an OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 (or $ACP_MODEL_URL)
  --model NAME       the model name (or $ACP_MODEL)
  --model-key KEY    the API key, if the endpoint needs one (or $ACP_MODEL_KEY)
  --run-timeout MS   how long /run waits for a command (default 30000)
  --grep-time-limit MS  how long a /grep search may run before it is stopped (default 10000)
  --log-level LEVEL  debug, info, warn (default), error or silent (or $ACP_LOG); logs go to stderr
  --unstable         speak the unstable protocol too: MCP servers the client serves over ACP ("type": "acp"), session/fork
`;

const FLAGS = [
  "data-dir",
  "store",
  "store-wait",
  "store-lease",
  "model-url",
  "model",
  "model-key",
  "run-timeout",
  "grep-time-limit",
  "log-level",
] as const;
type Flag = (typeof FLAGS)[number];

/** Parses the flags; throws an Error with a message for the user when they are wrong. */
export function parseAgentFlags(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
): ReferenceAgentOptions {
  const values: Partial<Record<Flag, string>> = {};
  let unstable = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--unstable") {
      unstable = true;
      continue;
    }
    const match = /^--([a-z-]+)(?:=([\s\S]*))?$/.exec(arg);
    const name = match?.[1] as Flag | undefined;
    if (match === null || name === undefined || !FLAGS.includes(name))
      throw new Error(`unknown argument "${maskUrlPasswords(arg)}"`);
    const value = match[2] ?? argv[++i];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    values[name] = value;
  }
  const options: ReferenceAgentOptions = unstable ? { unstable } : {};
  if (values["data-dir"] !== undefined) options.dataDir = values["data-dir"];
  const store = values.store ?? (env.ACP_STORE === "" ? undefined : env.ACP_STORE);
  if (store !== undefined) {
    // Never echoed: it may hold a password.
    if (!/^postgres(?:ql)?:\/\//i.test(store))
      throw new Error(
        `--store${values.store === undefined ? " ($ACP_STORE)" : ""} must be a postgres:// or postgresql:// URL ` +
          "(sessions are kept in files under --data-dir unless it is given)",
      );
    options.store = store;
  }
  const lease = values["store-lease"] ?? (env.ACP_STORE_LEASE === "" ? undefined : env.ACP_STORE_LEASE);
  if (lease !== undefined) {
    const ms = Number(lease);
    if (!Number.isSafeInteger(ms) || ms < 200)
      throw new Error("--store-lease (or $ACP_STORE_LEASE) must be a number of milliseconds, 200 or more");
    options.storeLeaseMs = ms;
  }
  if (values["store-wait"] !== undefined) {
    const ms = Number(values["store-wait"]);
    if (!Number.isSafeInteger(ms) || ms < 0)
      throw new Error("--store-wait must be 0 or a positive number of milliseconds");
    options.storeWaitMs = ms;
  }
  const model = resolveModelConfig({ url: values["model-url"], model: values.model, key: values["model-key"] }, env);
  if (model !== undefined) options.model = model;
  if (values["run-timeout"] !== undefined) {
    const ms = Number(values["run-timeout"]);
    if (!Number.isSafeInteger(ms) || ms <= 0)
      throw new Error("--run-timeout must be a positive number of milliseconds");
    options.runTimeoutMs = ms;
  }
  if (values["grep-time-limit"] !== undefined) {
    const ms = Number(values["grep-time-limit"]);
    if (!Number.isSafeInteger(ms) || ms <= 0)
      throw new Error("--grep-time-limit must be a positive number of milliseconds");
    options.grepTimeLimitMs = ms;
  }
  const levelText = values["log-level"] ?? env.ACP_LOG;
  if (levelText !== undefined) {
    const level = parseLogLevel(levelText);
    if (level === undefined) throw new Error(`unknown log level "${levelText}"`);
    options.logLevel = level;
  }
  return options;
}

/** Runs `acp agent`; resolves with the exit code once the client has gone. */
export async function agentCommand(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(AGENT_USAGE);
    return 0;
  }
  // The command line may hold a database password: `ps` shows only the command's name from here on.
  if (argv.some((arg) => arg === "--store" || arg.startsWith("--store="))) process.title = "acp agent";
  let options: ReferenceAgentOptions;
  try {
    options = parseAgentFlags(argv);
  } catch (error) {
    process.stderr.write(
      `acp agent: ${error instanceof Error ? error.message : String(error)}\nRun "acp agent --help" for the flags.\n`,
    );
    return 2;
  }
  try {
    await runReferenceAgent(options);
  } catch (error) {
    if (!(error instanceof SessionStoreUnavailable)) throw error;
    process.stderr.write(`acp agent: ${error.message}\n`);
    return 1;
  }
  return 0;
}

/** `scheme://user:password@...` with the password masked (`***`). */
export function maskUrlPasswords(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)[^@/?#\s]+@/gi, "$1***@");
}
