/**
 * Record and replay end to end: a session of `acp exec` with the reference agent recorded through `acp record`
 * (the tap), replayed `--as agent` to `acp exec` (same output, in another directory), and `--as client` against
 * the reference agent (no differences) and against a deliberately changed agent (the difference, with its path).
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { readCassette } from "../../../src/wire/index.js";
import { acp, ACP, FIXTURES, tempDir } from "./support.js";

const dir = tempDir("acpkit-replay-");
const env = { ACPKIT_DATA_DIR: join(dir, "data") };
after(() => rmSync(dir, { recursive: true, force: true }));

const quote = (words: readonly string[]) => words.map((w) => `'${w}'`).join(" ");
const reference = quote([process.execPath, ACP, "agent"]);
const cassette = join(dir, "session.cassette");
const recordedCwd = join(dir, "recorded");
mkdirSync(recordedCwd);
writeFileSync(join(recordedCwd, "notes.txt"), "one\ntwo\nthree\n");
const prompt = "/read notes.txt";

test(
  "record a session of acp exec with the reference agent, replay its agent side to acp exec: the same output",
  { timeout: 120_000 },
  async () => {
    const recorded = await acp(
      ["exec", "--agent", `${quote([process.execPath, ACP, "record", cassette, "--"])} ${reference}`, prompt],
      { cwd: recordedCwd, env },
    );
    assert.equal(recorded.code, 0, recorded.stderr);
    assert.match(recorded.stdout, /Read notes\.txt: 3 lines/);
    const tape = readCassette(readFileSync(cassette, "utf8"));
    assert.equal((tape.header.agentInfo as { name: string }).name, "acpkit-reference-agent");
    assert.ok(
      tape.entries.some(
        (e) => e.frame.kind === "message" && (e.frame.value as { method?: string }).method === "fs/read_text_file",
      ),
      "the agent read the file through the client",
    );

    const elsewhere = join(dir, "elsewhere");
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, "notes.txt"), "one\ntwo\nthree\n");
    const replayed = await acp(
      ["exec", "--agent", quote([process.execPath, ACP, "replay", cassette, "--as", "agent"]), prompt],
      { cwd: elsewhere, env },
    );
    assert.equal(replayed.code, 0, replayed.stderr);
    assert.equal(replayed.stdout, recorded.stdout);
  },
);

test(
  "replay the client's side against the reference agent: no differences (ids, session ids and times are volatile)",
  { timeout: 120_000 },
  async () => {
    const run = await acp(["replay", cassette, "--as", "client", "--", process.execPath, ACP, "agent"], { env });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /acp replay --as client: \d+ agent frames compared, no differences\n$/);
  },
);

test(
  "replay the client's side against a changed agent: the differences, with their JSON paths",
  { timeout: 120_000 },
  async () => {
    const run = await acp(
      ["replay", cassette, "--as", "client", "--", process.execPath, join(FIXTURES, "changed-agent.js"), "--serve"],
      { env },
    );
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /\d+ agent frames compared, [1-9]\d* differences?/);
    assert.match(
      run.stdout,
      /differs +#\d+ agent session\/update tool_call: \d+ differences?\n +\$\.params\.update\.title: expected "Read notes\.txt", got "Looked at notes\.txt"/,
    );
  },
);

test("a file that is not a cassette, or a missing side: exit 2 with what to do", async () => {
  const bogus = join(dir, "bogus.txt");
  writeFileSync(bogus, '{"time":1}\n');
  const notCassette = await acp(["replay", bogus, "--as", "agent"]);
  assert.equal(notCassette.code, 2);
  assert.match(notCassette.stderr, /bogus\.txt: cassette line 1: the first line must be the header/);
  const noSide = await acp(["replay", cassette]);
  assert.equal(noSide.code, 2);
  assert.match(noSide.stderr, /say which side to play: --as agent/);
});

test(
  "replay --as agent --timing keeps the recorded gaps: a 2 s pause before the prompt's answer is a pause again",
  { timeout: 120_000 },
  async () => {
    const tape = readCassette(readFileSync(cassette, "utf8"));
    const promptId = tape.entries
      .map((e) => (e.frame.kind === "message" ? (e.frame.value as { id?: unknown; method?: string }) : {}))
      .find((m) => m.method === "session/prompt")!.id;
    const answerAt = tape.entries.findIndex(
      (e) =>
        e.from === "agent" &&
        e.frame.kind === "message" &&
        (e.frame.value as { id?: unknown; method?: string }).id === promptId &&
        (e.frame.value as { method?: string }).method === undefined,
    );
    assert.ok(answerAt > 0, "the recording has the prompt's answer");
    // The same recording, with the agent pausing 2 s before it answers the prompt.
    const lines = readFileSync(cassette, "utf8").trimEnd().split("\n");
    const shifted = [
      lines[0]!,
      ...lines.slice(1).map((line, i) =>
        i < answerAt
          ? line
          : JSON.stringify({
              ...(JSON.parse(line) as { time: number }),
              time: (JSON.parse(line) as { time: number }).time + 2000,
            }),
      ),
    ];
    const timed = join(dir, "timed.cassette");
    writeFileSync(timed, `${shifted.join("\n")}\n`);

    const elsewhere = join(dir, "timed-run");
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, "notes.txt"), "one\ntwo\nthree\n");
    const live = join(dir, "live.cassette");
    const run = await acp(
      [
        "exec",
        "--trace",
        live,
        "--agent",
        quote([process.execPath, ACP, "replay", timed, "--as", "agent", "--timing"]),
        prompt,
      ],
      { cwd: elsewhere, env },
    );
    assert.equal(run.code, 0, run.stderr);
    const seen = readCassette(readFileSync(live, "utf8")).entries;
    const livePrompt = seen.find(
      (e) =>
        e.from === "client" &&
        e.frame.kind === "message" &&
        (e.frame.value as { method?: string }).method === "session/prompt",
    )!;
    const liveId = (livePrompt.frame as { value: { id: unknown } }).value.id;
    const answer = seen.findIndex(
      (e) =>
        e.from === "agent" &&
        e.frame.kind === "message" &&
        (e.frame.value as { id?: unknown; method?: string }).id === liveId &&
        (e.frame.value as { method?: string }).method === undefined,
    );
    const before = seen
      .slice(0, answer)
      .filter((e) => e.from === "agent")
      .at(-1)!;
    // The pause was kept (the replay waits it out before sending; only a lower bound is asserted, load can add to it).
    assert.ok(seen[answer]!.time - before.time >= 1500, `gap ${seen[answer]!.time - before.time} ms before the answer`);
  },
);
