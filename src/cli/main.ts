#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { runDemo } from "../apps/demo/demo-client.js";
import { painterFor } from "../apps/demo/painter.js";

const usage = `acp: the acpkit command

Usage:
  acp demo        run an acpkit agent as a child process and drive one prompt turn with an acpkit client
  acp --version   print the version
  acp --help      print this help
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  switch (command) {
    case "demo":
      return runDemo(painterFor(process.stdout), (text) => process.stdout.write(text));
    case "--version":
    case "-v":
      process.stdout.write(`${version()}\n`);
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
