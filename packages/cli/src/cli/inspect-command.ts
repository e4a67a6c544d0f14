/**
 * `acp inspect [flags] [-- <agent command>]`: a thin front of the inspector (src/apps/inspect). Bad flags print a
 * message to stderr and exit 2.
 */
import { sharedSessionObserver } from "../apps/inspect/shared-observer.js";
import { splitCommandLine } from "@acpkit/sdk/node";
import { InspectUsageError, runInspect, type InspectOptions } from "../apps/inspect/run-inspect.js";
import { PageMissingError } from "../apps/inspect/page-html.js";
import { ACP_MAIN } from "./shared/default-agent.js";

export const INSPECT_USAGE = `Usage: acp inspect [options] [-- <agent command> | --url URL | --cassette FILE | --tap -- <agent command>]

A web inspector for ACP conversations, live or recorded. It serves a page on loopback and prints its URL (with a
token: whoever has the URL can drive the agent); open it in a browser.

  acp inspect -- <agent command>        drive the agent from the page: a client, the wire, conformance
  acp inspect --url URL [--remote-token T]   the same for a remote agent (acp serve; WebSocket or Streamable HTTP)
  acp inspect --tap -- <agent command>  as an editor's agent command: every byte passes through unchanged, the
                                        page shows the editor's conversation live; the URL goes to stderr
  acp inspect --cassette FILE [-- <agent command>]   open a recorded conversation (and replay it against the agent)
  acp inspect --attach URL SESSION      watch a live session another client drives, read-only (acp serve's shared
                                        sessions; --remote-token T or $ACP_TOKEN: the server's or a share token)

Options:
  --port P            port to listen on (default: any free port)
  --host H            address to listen on (default 127.0.0.1)
  --allow-host NAME   a Host name the server answers to besides the loopback names (repeatable)
  --token T           the token in the URL (default: generated)
  --open              open the page in the default browser
  --url-file FILE     also write the URL to FILE (mode 600)
  --cwd DIR           where sessions are created and files and commands are served (default: here)
  --profile websocket|http   with --url: the remote transport (default: WebSocket, then Streamable HTTP)
  -h, --help          this help
`;

class UsageError extends Error {}

function parse(argv: readonly string[], version: string, cwd: string): InspectOptions & { help: boolean } {
  const options: InspectOptions & { help: boolean } = {
    help: false,
    host: "127.0.0.1",
    port: 0,
    open: false,
    tap: false,
    cwd,
    version,
    acpArgv: [process.execPath, ACP_MAIN],
  };
  const allowHosts: string[] = [];
  const value = (i: number, flag: string): string => {
    const next = argv[i];
    if (next === undefined || next === "" || next.startsWith("--")) throw new UsageError(`${flag} needs a value`);
    return next;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      let agent = argv.slice(i + 1);
      if (agent.length === 1 && /\s/.test(agent[0]!)) agent = splitCommandLine(agent[0]!);
      if (agent.length === 0) throw new UsageError("no agent command after --");
      options.agent = agent;
      break;
    }
    switch (arg) {
      case "-h":
      case "--help":
        options.help = true;
        break;
      case "--open":
        options.open = true;
        break;
      case "--tap":
        options.tap = true;
        break;
      case "--port": {
        const port = Number(value(++i, arg));
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new UsageError(`--port needs a port number from 0 to 65535, not "${argv[i]}"`);
        options.port = port;
        break;
      }
      case "--host":
        options.host = value(++i, arg);
        break;
      case "--allow-host":
        allowHosts.push(value(++i, arg));
        break;
      case "--token":
        options.token = value(++i, arg);
        break;
      case "--url-file":
        options.urlFile = value(++i, arg);
        break;
      case "--cwd":
        options.cwd = value(++i, arg);
        break;
      case "--url":
        options.url = value(++i, arg);
        if (!/^(https?|wss?):\/\//i.test(options.url))
          throw new UsageError(`--url needs an http(s):// or ws(s):// URL, not "${options.url}"`);
        break;
      case "--remote-token":
        options.remoteToken = value(++i, arg);
        break;
      case "--profile": {
        const profile = value(++i, arg);
        if (profile !== "websocket" && profile !== "http")
          throw new UsageError(`--profile is websocket or http, not "${profile}"`);
        options.profile = profile;
        break;
      }
      case "--cassette":
        options.cassette = value(++i, arg);
        break;
      case "--attach":
        options.attach = { url: value(++i, arg), sessionId: value(++i, arg) };
        break;
      default:
        throw new UsageError(`unknown argument "${arg}"; put the agent's command after --`);
    }
  }
  if (allowHosts.length > 0) options.allowHosts = allowHosts;
  if (options.help) return options;
  if (options.tap && options.agent === undefined)
    throw new UsageError("--tap needs the agent's command after --, e.g. acp inspect --tap -- npx my-agent --acp");
  if (options.tap && (options.url !== undefined || options.cassette !== undefined || options.attach !== undefined))
    throw new UsageError("--tap goes with an agent command only (not --url, --cassette or --attach)");
  if (options.url !== undefined && options.agent !== undefined)
    throw new UsageError("give either --url or an agent command after --, not both");
  if (options.token === "") throw new UsageError("--token must not be empty");
  return options;
}

export async function inspectCommand(argv: readonly string[], version: string): Promise<number> {
  let options: ReturnType<typeof parse>;
  try {
    options = parse(argv, version, process.cwd());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`acp inspect: ${error.message}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(INSPECT_USAGE);
    return 0;
  }
  try {
    const code = await runInspect(options, {
      stdout: (text) => void process.stdout.write(text),
      stderr: (text) => void process.stderr.write(text),
      observerSource: sharedSessionObserver(options.remoteToken ?? process.env.ACP_TOKEN),
    });
    if (options.tap) process.stdin.destroy();
    return code;
  } catch (error) {
    if (error instanceof InspectUsageError || error instanceof PageMissingError) {
      process.stderr.write(`acp inspect: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
