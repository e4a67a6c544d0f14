import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { generateToken } from "@acpkit/sdk/node";
import { insecureNotes, SHORT_TOKEN_CHARS } from "./insecure-notes.js";
import { parseServeArgs } from "./serve-options.js";
import { agentEnvironment, readTokenFile } from "./serve-secrets.js";

const dir = mkdtempSync(join(tmpdir(), "acp-serve-secrets-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("the agents' environment has no ACP_TOKEN and no variable holding the token; the rest is kept", () => {
  const env = agentEnvironment({ ACP_TOKEN: "s3cret", COPY: "s3cret", PATH: "/bin", OTHER: "s3cret-not" }, "s3cret");
  assert.deepEqual(env, { PATH: "/bin", OTHER: "s3cret-not" });
  assert.deepEqual(agentEnvironment({ ACP_TOKEN: "x", HOME: "/h" }, undefined), { HOME: "/h" });
});

test("--token-file: the first line, trimmed; an unreadable, empty or spaced token is a usage error; loose modes noted", () => {
  const file = join(dir, "token");
  writeFileSync(file, "  abc-DEF_123 \nsecond line\n");
  chmodSync(file, 0o600);
  const notes: string[] = [];
  assert.equal(
    readTokenFile(file, (text) => notes.push(text)),
    "abc-DEF_123",
  );
  assert.equal(notes.length, 0);
  chmodSync(file, 0o640);
  readTokenFile(file, (text) => notes.push(text));
  assert.match(notes[0] ?? "", /may be read by other users of this machine: chmod 600 it/);
  writeFileSync(file, "two words\n");
  assert.throws(() => readTokenFile(file, () => {}), /must not contain spaces/);
  writeFileSync(file, "\n");
  assert.throws(() => readTokenFile(file, () => {}), /first line is empty/);
  assert.throws(() => readTokenFile(join(dir, "missing"), () => {}), /cannot read it \(ENOENT\)/);
});

test("insecure notes: one per weakened default, none for the defaults", () => {
  const notes = (argv: string[], hasToken = true) =>
    insecureNotes(parseServeArgs(argv, {}), "127.0.0.1:8765", hasToken ? generateToken() : undefined).join("\n");
  assert.equal(notes([]), "");
  assert.match(notes(["--insecure-no-token"], false), /--insecure-no-token: no token; any process or user/);
  assert.match(notes(["--allow-host", "any"]), /--allow-host any: the Host check is off, so DNS rebinding/);
  assert.match(notes(["--allow-origin", "any"]), /--allow-origin any: a page of any web site can call/);
  assert.match(
    notes(["--allow-origin", "https://a.example"]),
    /pages of https:\/\/a\.example can call this server with the token/,
  );
  const lan = notes(["--host", "0.0.0.0"]);
  assert.match(lan, /no TLS on 0\.0\.0\.0: the token and everything the agent says cross the network in clear text/);
  assert.doesNotMatch(lan, /stdio MCP/, "refused by default off loopback: nothing to note");
  assert.match(
    notes(["--host", "0.0.0.0", "--allow-stdio-mcp"]),
    /--allow-stdio-mcp: clients may name stdio MCP servers/,
  );
  assert.match(
    notes(["--host", "0.0.0.0", "--insecure-no-token", "--allow-insecure"], false),
    /anyone on the network who can reach 127\.0\.0\.1:8765 can run the agent/,
  );
});

test("a short token is noted as guessable, whatever its source; a generated one or a long one is not", () => {
  const notes = (token: string | undefined) =>
    insecureNotes(parseServeArgs([], {}), "127.0.0.1:8765", token).join("\n");
  assert.match(
    notes("abc"),
    /the token has 3 characters: one that short can be guessed by whoever can reach 127\.0\.0\.1:8765 and try tokens; use 22 or more random characters/,
  );
  assert.match(notes("x".repeat(SHORT_TOKEN_CHARS - 1)), /the token has 21 characters/);
  assert.equal(notes("x".repeat(SHORT_TOKEN_CHARS)), "");
  assert.equal(notes(generateToken()), "");
  assert.equal(notes(undefined), "");
});
