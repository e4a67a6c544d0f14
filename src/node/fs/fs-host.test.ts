import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { RequestError } from "../../jsonrpc/request-error.js";
import { FileSystemHost, selectLines } from "./fs-host.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-fs-")));
after(() => rmSync(base, { recursive: true, force: true }));
const proj = join(base, "proj");
const extra = join(base, "extra");
mkdirSync(proj);
mkdirSync(extra);
mkdirSync(join(base, "proj-evil"));
writeFileSync(join(base, "secret.txt"), "secret\n");
writeFileSync(join(base, "proj-evil", "x.txt"), "evil\n");
writeFileSync(join(proj, "lines.txt"), "one\ntwo\nthree\nfour");
writeFileSync(join(extra, "e.txt"), "extra");
symlinkSync(join(base, "secret.txt"), join(proj, "secret-link.txt"));
symlinkSync(base, join(proj, "up"));

const overlay = new Map([[join(proj, "open.ts"), "unsaved buffer\n"]]);
const writes: string[] = [];
const host = new FileSystemHost({
  roots: (sessionId) => (sessionId === "s1" ? [proj, extra] : undefined),
  overlay,
  onWrite: (event) => writes.push(event.path),
});
const sessionId = "s1";
const isCode = (code: number, pattern?: RegExp) => (error: unknown) =>
  error instanceof RequestError && error.code === code && (!pattern || pattern.test(error.message));

test("selectLines: 1-based line and limit in lines", () => {
  const text = "a\nb\nc\n";
  assert.equal(selectLines(text, 1, undefined), text);
  assert.equal(selectLines(text, 2, undefined), "b\nc\n");
  assert.equal(selectLines(text, 2, 1), "b\n");
  assert.equal(selectLines(text, 3, 10), "c\n");
  assert.equal(selectLines(text, 4, 1), "");
  assert.equal(selectLines(text, 9, undefined), "");
  assert.equal(selectLines(text, 0, 2), "a\nb\n");
  assert.equal(selectLines(text, 1, 0), "");
});

test("reads files inside the roots, with line and limit, and overlay buffers first", async () => {
  assert.deepEqual(await host.readTextFile({ sessionId, path: join(proj, "lines.txt") }), {
    content: "one\ntwo\nthree\nfour",
  });
  assert.deepEqual(await host.readTextFile({ sessionId, path: join(proj, "lines.txt"), line: 2, limit: 2 }), {
    content: "two\nthree\n",
  });
  assert.deepEqual(await host.readTextFile({ sessionId, path: join(proj, "lines.txt"), line: 4 }), { content: "four" });
  assert.deepEqual(await host.readTextFile({ sessionId, path: join(extra, "e.txt") }), { content: "extra" });
  assert.deepEqual(await host.readTextFile({ sessionId, path: join(proj, "open.ts") }), {
    content: "unsaved buffer\n",
  });
});

test("clear errors: missing file, relative path, directory, bad line, unknown session", async () => {
  await assert.rejects(
    host.readTextFile({ sessionId, path: join(proj, "missing.txt") }),
    (error) => isCode(-32002)(error) && (error as RequestError).message.includes("missing.txt"),
  );
  await assert.rejects(host.readTextFile({ sessionId, path: "lines.txt" }), isCode(-32602, /absolute/));
  await assert.rejects(host.readTextFile({ sessionId, path: proj }), isCode(-32602, /directory/));
  await assert.rejects(host.readTextFile({ sessionId, path: join(proj, "lines.txt"), line: -1 }), isCode(-32602));
  await assert.rejects(host.readTextFile({ sessionId: "nope", path: join(proj, "lines.txt") }), isCode(-32002));
});

test("escape attempts are refused for reading: .., symlinks out, prefix tricks", async () => {
  const outside = isCode(-32602, /outside the session's roots/);
  await assert.rejects(host.readTextFile({ sessionId, path: join(proj, "..", "secret.txt") }), outside);
  await assert.rejects(host.readTextFile({ sessionId, path: `${proj}/../secret.txt` }), outside);
  await assert.rejects(host.readTextFile({ sessionId, path: join(proj, "secret-link.txt") }), outside);
  await assert.rejects(host.readTextFile({ sessionId, path: join(proj, "up", "secret.txt") }), outside);
  await assert.rejects(host.readTextFile({ sessionId, path: join(`${proj}-evil`, "x.txt") }), outside);
});

test("writes create the file and its parent directories inside the roots", async () => {
  const path = join(proj, "new", "deep", "file.txt");
  assert.deepEqual(await host.writeTextFile({ sessionId, path, content: "héllo 😀\n" }), {});
  assert.equal(readFileSync(path, "utf8"), "héllo 😀\n");
  await host.writeTextFile({ sessionId, path, content: "short" });
  assert.equal(readFileSync(path, "utf8"), "short");
  assert.deepEqual(writes.slice(-2), [path, path]);
});

test("escape attempts are refused for writing, and nothing is created outside", async () => {
  const outside = isCode(-32602, /outside the session's roots/);
  await assert.rejects(host.writeTextFile({ sessionId, path: join(proj, "..", "pwned.txt"), content: "x" }), outside);
  await assert.rejects(host.writeTextFile({ sessionId, path: join(proj, "secret-link.txt"), content: "x" }), outside);
  await assert.rejects(
    host.writeTextFile({ sessionId, path: join(proj, "up", "made", "pwned.txt"), content: "x" }),
    outside,
  );
  await assert.rejects(
    host.writeTextFile({ sessionId, path: join(`${proj}-evil`, "pwned.txt"), content: "x" }),
    outside,
  );
  await assert.rejects(host.writeTextFile({ sessionId, path: "rel.txt", content: "x" }), isCode(-32602, /absolute/));
  assert.equal(readFileSync(join(base, "secret.txt"), "utf8"), "secret\n");
  assert.ok(!existsSync(join(base, "pwned.txt")));
  assert.ok(!existsSync(join(base, "made")));
  assert.ok(!existsSync(join(base, "proj-evil", "pwned.txt")));
});
