/**
 * `acp check agent --auth METHOD --env NAME=VALUE` end to end with a fixture agent that needs a login (and a token
 * in its environment for it), a fixture that claims a login it did not make, and the isolation of every checked
 * agent: its own temporary HOME and data directories, removed afterwards, so the user's are never written.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { acp, configurableAgent, REFERENCE_AGENT, results, tempDir } from "./support.js";

const dir = tempDir("acpkit-check-auth-");
after(() => rmSync(dir, { recursive: true, force: true }));

const loginAgent = configurableAgent("--auth", "fixture-login");
const SESSION_IDS = ["auth.authenticate", "session.new", "prompt.turn"];
const only = ["--only", ["auth", "session.new", "prompt.turn"].join(",")];

test(
  "an agent that needs a login: without --auth what needs a session is not exercised, saying how to log in",
  { timeout: 120_000 },
  async () => {
    const run = await acp(["check", "agent", "--format", "json", ...only, "--", ...loginAgent]);
    const byId = results(run);
    assert.equal(run.code, 0, run.stdout);
    assert.equal(byId.get("auth.unknown-method")!.status, "passed");
    assert.equal(byId.get("auth.authenticate")!.status, "not-exercised");
    assert.match(
      byId.get("auth.authenticate")!.message!,
      /the agent offers "fixture-login"; log in with --auth METHOD/,
    );
    for (const id of ["session.new", "prompt.turn"]) {
      assert.equal(byId.get(id)!.status, "not-exercised", id);
      assert.match(
        byId.get(id)!.message!,
        /needs authentication before session\/new \(-32000 .*\); log in with --auth METHOD .* --env NAME=VALUE/,
      );
    }
  },
);

test(
  "--auth without the credentials: the refused login is reported, nothing is failed; with --env the agent is exercised",
  { timeout: 120_000 },
  async () => {
    const refused = await acp([
      "check",
      "agent",
      "--format",
      "json",
      ...only,
      "--auth",
      "fixture-login",
      "--",
      ...loginAgent,
    ]);
    assert.equal(refused.code, 0, refused.stdout);
    for (const id of SESSION_IDS) {
      assert.equal(results(refused).get(id)!.status, "not-exercised", id);
      assert.match(
        results(refused).get(id)!.message!,
        /authenticate with "fixture-login" \(--auth\) was refused: -32000 .*FIXTURE_AGENT_TOKEN is not set.*give them with --env NAME=VALUE/,
      );
    }
    const run = await acp([
      "check",
      "agent",
      "--format",
      "json",
      ...only,
      "--auth",
      "fixture-login",
      "--env",
      "FIXTURE_AGENT_TOKEN=open-sesame",
      "--",
      ...loginAgent,
    ]);
    const byId = results(run);
    assert.equal(run.code, 0, run.stdout);
    for (const id of ["auth.unknown-method", ...SESSION_IDS])
      assert.equal(byId.get(id)!.status, "passed", `${id}: ${byId.get(id)!.message}`);
    assert.match(
      byId.get("auth.authenticate")!.message!,
      /^logged in with "fixture-login"; session\/new then accepted/,
    );
  },
);

test(
  "mutation: an agent that answers authenticate with success without logging in fails auth.authenticate",
  { timeout: 120_000 },
  async () => {
    const run = await acp([
      "check",
      "agent",
      "--format",
      "json",
      "--only",
      "auth.authenticate",
      "--auth",
      "fixture-login",
      "--env",
      "FIXTURE_AGENT_TOKEN=open-sesame",
      "--",
      ...configurableAgent("--auth", "fixture-login", "--auth-fault", "ignore"),
    ]);
    assert.equal(run.code, 1, run.stdout);
    const result = results(run).get("auth.authenticate")!;
    assert.equal(result.status, "failed");
    assert.match(
      result.message!,
      /answered authenticate with "fixture-login" with success, then refused session\/new with -32000 .* an agent that could not log the client in must say so with an error from authenticate/,
    );
  },
);

test(
  "--auth naming a method the agent does not offer, and a malformed --env, are usage errors (exit 2)",
  { timeout: 60_000 },
  async () => {
    const wrong = await acp(["check", "agent", "--auth", "nope", "--", ...loginAgent]);
    assert.equal(wrong.code, 2, wrong.stdout);
    assert.match(
      wrong.stderr,
      /the agent does not offer the auth method "nope" given with --auth; it offers "fixture-login"/,
    );
    assert.equal(wrong.stdout, "");
    const env = await acp(["check", "agent", "--env", "NO_EQUALS_SIGN", "--", ...loginAgent]);
    assert.equal(env.code, 2);
    assert.match(env.stderr, /--env takes NAME=VALUE/);
    const client = await acp(["check", "client", "--auth", "x", "--", "c", "{agent}"]);
    assert.equal(client.code, 2, "--auth is for agents only");
  },
);

test(
  "every checked agent gets its own temporary HOME and data directories, removed afterwards; the user's stay untouched",
  { timeout: 200_000 },
  async () => {
    // The user's home as the checker sees it, with no data directory override: an agent would write here.
    const userHome = join(dir, "user-home");
    mkdirSync(userHome);
    const env = { HOME: userHome, ACPKIT_DATA_DIR: "", XDG_DATA_HOME: "" };
    const reference = await acp(
      ["check", "agent", "--format", "json", "--only", "session.new,session.load", "--", ...REFERENCE_AGENT],
      { env },
    );
    assert.equal(reference.code, 0, reference.stdout);
    assert.equal(
      results(reference).get("session.load")!.status,
      "passed",
      "load in a new process still finds the stored session",
    );

    const note = join(dir, "note.jsonl");
    const noted = await acp(
      ["check", "agent", "--format", "json", "--only", "session.new", "--", ...configurableAgent("--note", note)],
      { env },
    );
    assert.equal(noted.code, 0, noted.stdout);
    assert.deepEqual(readdirSync(userHome), [], "nothing written into the user's home");
    const seen = readFileSync(note, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { home: string; xdgDataHome: string; acpkitDataDir: string });
    assert.ok(seen.length >= 2, "initialize and session.new each launched the agent");
    for (const { home, xdgDataHome, acpkitDataDir } of seen) {
      assert.notEqual(home, userHome);
      assert.ok(
        xdgDataHome.startsWith(`${home}/`) && acpkitDataDir.startsWith(`${home}/`),
        `${xdgDataHome} and ${acpkitDataDir} under ${home}`,
      );
      assert.equal(existsSync(home), false, `${home} removed after the run`);
    }
    assert.equal(new Set(seen.map((s) => s.home)).size, 2, "one home per scenario");

    // --env replaces the temporary HOME (an agent that reads its login from the real home).
    const own = join(dir, "given-home");
    mkdirSync(own);
    const given = await acp(
      [
        "check",
        "agent",
        "--only",
        "initialize",
        "--env",
        `HOME=${own}`,
        "--",
        ...configurableAgent("--note", join(dir, "given.jsonl")),
      ],
      { env },
    );
    assert.equal(given.code, 0, given.stdout);
    assert.ok(existsSync(join(own, ".configurable-agent-was-here")));
  },
);
