/**
 * `acp serve [flags]`: puts a stdio agent (default: the reference agent) on Streamable HTTP and WebSocket. Flags are
 * parsed in src/apps/serve/serve-options.ts; bad flags print a message to stderr and exit 2.
 */
import { parseServeArgs, SERVE_USAGE, ServeUsageError } from "../apps/serve/serve-options.js";
import { runServe } from "../apps/serve/run-serve.js";
import { DEFAULT_AGENT_ARGV } from "./shared/default-agent.js";

export async function serveCommand(argv: readonly string[]): Promise<number> {
  const io = {
    stdout: (text: string) => void process.stdout.write(text),
    stderr: (text: string) => void process.stderr.write(text),
    defaultAgentArgv: DEFAULT_AGENT_ARGV,
  };
  try {
    const options = parseServeArgs(argv);
    // A token on the command line is in every user's `ps` while we start; rewrite our command line so it is not after.
    if (argv.some((arg) => arg === "--token" || arg.startsWith("--token="))) process.title = "acp serve";
    if (options.help) {
      io.stdout(SERVE_USAGE);
      return 0;
    }
    return await runServe(options, io);
  } catch (error) {
    if (!(error instanceof ServeUsageError)) throw error;
    io.stderr(`acp serve: ${error.message}\n`);
    return 2;
  }
}
