import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { RequestError } from "../../jsonrpc/request-error.js";
import { confinePath, isWithin, OUTSIDE_ROOTS_CODE, realpathLongestExisting } from "./path-confinement.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-confine-")));
after(() => rmSync(base, { recursive: true, force: true }));
const proj = join(base, "proj");
mkdirSync(join(proj, "src"), { recursive: true });
mkdirSync(join(base, "proj-evil"));
mkdirSync(join(base, "outside"));
symlinkSync(join(base, "outside"), join(proj, "link-out"));
symlinkSync(join(proj, "src"), join(proj, "link-in"));

const refused = (error: unknown) =>
  error instanceof RequestError &&
  error.code === OUTSIDE_ROOTS_CODE &&
  (error.data as { reason: string }).reason === "outside_roots";

test("isWithin compares whole segments", () => {
  assert.ok(isWithin("/home/me/proj", "/home/me/proj"));
  assert.ok(isWithin("/home/me/proj", "/home/me/proj/a/b"));
  assert.ok(!isWithin("/home/me/proj", "/home/me/proj-evil"));
  assert.ok(!isWithin("/home/me/proj", "/home/me/proj-evil/x"));
  assert.ok(!isWithin("/home/me/proj", "/home/me"));
  assert.ok(isWithin("/home/me/proj", "/home/me/proj/..foo"));
  assert.ok(isWithin("/", "/etc"));
});

test("realpathLongestExisting resolves the existing prefix and appends the rest", async () => {
  assert.equal(
    await realpathLongestExisting(join(proj, "link-out", "new", "file.txt")),
    join(base, "outside", "new", "file.txt"),
  );
  assert.equal(await realpathLongestExisting(join(proj, "nope", "file.txt")), join(proj, "nope", "file.txt"));
});

test("paths inside the roots are accepted, with their real path", async () => {
  assert.equal((await confinePath(join(proj, "src", "a.ts"), [proj])).real, join(proj, "src", "a.ts"));
  assert.equal((await confinePath(join(proj, "link-in", "a.ts"), [proj])).real, join(proj, "src", "a.ts"));
  assert.equal(
    (await confinePath(join(base, "outside", "x"), [proj, join(base, "outside")])).root,
    join(base, "outside"),
  );
});

test("escapes are refused: .., symlinks out, prefix tricks, relative paths", async () => {
  await assert.rejects(confinePath(join(proj, "..", "outside", "x"), [proj]), refused);
  await assert.rejects(confinePath(`${proj}/src/../../outside/x`, [proj]), refused);
  await assert.rejects(confinePath(join(proj, "link-out", "x"), [proj]), refused);
  await assert.rejects(confinePath(join(proj, "link-out", "deeper", "new.txt"), [proj]), refused);
  await assert.rejects(confinePath(join(base, "proj-evil", "x"), [proj]), refused);
  await assert.rejects(confinePath(`${proj}-evil`, [proj]), refused);
  await assert.rejects(
    confinePath("src/a.ts", [proj]),
    (error) => error instanceof RequestError && error.code === -32602 && /absolute/.test(error.message),
  );
  await assert.rejects(
    confinePath(join(proj, "a"), undefined),
    (error) => error instanceof RequestError && error.code === -32002,
  );
});

test("a root given through a symlink is compared by its real path", async () => {
  const viaLink = join(base, "proj-link");
  symlinkSync(proj, viaLink);
  assert.equal((await confinePath(join(viaLink, "src", "a"), [viaLink])).real, join(proj, "src", "a"));
  await assert.rejects(confinePath(join(viaLink, "link-out", "a"), [viaLink]), refused);
});

test(
  "symlink loops, overlong names and NUL bytes are -32602 with a reason (a terminal's cwd goes through here " + "too)",
  async () => {
    symlinkSync(join(proj, "loop-2"), join(proj, "loop-1"));
    symlinkSync(join(proj, "loop-1"), join(proj, "loop-2"));
    const reason = (expected: string) => (error: unknown) =>
      error instanceof RequestError && error.code === -32602 && (error.data as { reason: string }).reason === expected;
    await assert.rejects(confinePath(join(proj, "loop-1", "x"), [proj]), reason("symlink_loop"));
    await assert.rejects(confinePath(join(proj, "y".repeat(300)), [proj]), reason("name_too_long"));
    await assert.rejects(confinePath(`${proj}/a\0b`, [proj]), reason("nul_byte"));
  },
);
