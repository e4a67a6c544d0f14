import assert from "node:assert/strict";
import { test } from "node:test";
import { isAbsolutePath, isInside, isInsideAny } from "./paths.js";

test("absolute paths: POSIX, drive letters, UNC; relative ones are not", () => {
  for (const path of ["/a", "C:\\x", "c:/x", "\\\\server\\share\\x"]) assert.equal(isAbsolutePath(path), true, path);
  for (const path of ["a", "./a", "../a", "C:x", ""]) assert.equal(isAbsolutePath(path), false, path);
});

test("inside a root, lexically: .. resolved, prefix tricks refused, Windows case-insensitive", () => {
  assert.equal(isInside("/work/p/a.txt", "/work/p"), true);
  assert.equal(isInside("/work/p", "/work/p/"), true);
  assert.equal(isInside("/work/p/sub/../a.txt", "/work/p"), true);
  assert.equal(isInside("/work/p/../q/a.txt", "/work/p"), false);
  assert.equal(isInside("/work/project-evil/a", "/work/project"), false);
  assert.equal(isInside("/../../work/p/a", "/work/p"), true);
  assert.equal(isInside("C:\\Work\\P\\a.txt", "c:/work/p"), true);
  assert.equal(isInside("C:\\work\\a.txt", "/work"), false);
  assert.equal(isInside("a.txt", "/work"), false);
  assert.equal(isInsideAny("/extra/x", ["/work/p", "/extra"]), true);
});
