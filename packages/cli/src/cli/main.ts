#!/usr/bin/env node
/**
 * The `acp` command: reads the first argument and hands the rest to that command's module, imported only then, so
 * that a program starts with the code it runs and nothing else (`acp agent` does not load the inspector, the
 * cluster or the chat's terminal UI; an editor spawning it pays for the agent alone).
 */
import { cliVersion, versionReport } from "./shared/versions.js";

const usage = `acp: the acpkit command

Usage:
  acp agent                           run the reference agent on stdio (acp agent --help for its flags)
  acp exec "<prompt>"                 run one prompt turn against an ACP agent, headless (acp exec --help)
  acp chat                            a terminal UI for any ACP agent (acp chat --help)
  acp check agent|client              conformance checks of an ACP agent or client (acp check --help)
  acp tap -- <agent command>          a transparent stdio proxy that checks every frame (acp tap --help)
  acp record FILE -- <agent command>  record a conversation as a cassette (acp record --help)
  acp replay FILE --as agent|client   play one side of a cassette (acp replay --help)
  acp connect URL                     a remote agent (http(s):// or ws(s)://) as a stdio agent (acp connect --help)
  acp serve                           an ACP agent on the network: Streamable HTTP and WebSocket (acp serve --help)
  acp sessions URL                    live sessions of an acp serve, who is attached (join: acp chat --attach ID URL)
  acp inspect                         a web inspector for ACP conversations, live or recorded (acp inspect --help)
  acp demo                            one prompt turn between an acpkit agent (a child process) and an acpkit client
  acp --version                       the versions of @acpkit/cli and of the @acpkit/sdk it runs on
  acp --help                          this help
`;

function version(): string {
  return cliVersion();
}

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  switch (command) {
    case "agent":
      return (await import("./agent-command.js")).agentCommand(argv.slice(1));
    case "exec":
      return (await import("./exec-command.js")).execCommand(argv.slice(1), version());
    case "chat":
      return (await import("./chat-command.js")).chatCommand(argv.slice(1));
    case "check":
      return (await import("./check/check-command.js")).checkCommand(argv.slice(1), version());
    case "tap":
      return (await import("./tap-command.js")).tapCommand(argv.slice(1), version());
    case "record":
      return (await import("./tap-command.js")).tapCommand(argv.slice(1), version(), true);
    case "replay":
      return (await import("./replay-command.js")).replayCommand(argv.slice(1));
    case "connect":
      return (await import("./connect-command.js")).connectCommand(argv.slice(1));
    case "serve":
      return (await import("./serve-command.js")).serveCommand(argv.slice(1));
    case "sessions":
      return (await import("./sessions-command.js")).sessionsCommand(argv.slice(1));
    case "inspect":
      return (await import("./inspect-command.js")).inspectCommand(argv.slice(1), version());
    case "demo": {
      const [{ runDemo }, { painterFor }] = await Promise.all([
        import("../apps/demo/demo-client.js"),
        import("../apps/shared/painter.js"),
      ]);
      return runDemo(painterFor(process.stdout), (text) => process.stdout.write(text));
    }
    case "--version":
    case "-v":
      process.stdout.write(versionReport());
      return 0;
    case undefined:
    case "--help":
    case "-h":
    case "help":
      process.stdout.write(usage);
      return 0;
    default:
      process.stderr.write(`acp: unknown command "${command}". Run "acp --help" to see the commands.\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`acp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
