import assert from "node:assert/strict";
import { test } from "node:test";
import type { RequestPermissionRequest, ToolCallUpdate } from "../../protocol/index.js";
import { allowAll, denyAll, interactive, type PermissionPolicy } from "./permission-policy.js";
import { globToRegExp, normalizePath, pathMatcher, requestPaths, rules } from "./permission-rules.js";

function request(toolCall: Omit<ToolCallUpdate, "toolCallId">): RequestPermissionRequest {
  return {
    sessionId: "s",
    toolCall: { toolCallId: "c", ...toolCall },
    options: [
      { optionId: "yes", name: "Allow", kind: "allow_once" },
      { optionId: "no", name: "Reject", kind: "reject_once" },
    ],
  };
}

const answer = async (policy: PermissionPolicy, req: RequestPermissionRequest) => {
  const response = await policy(req, { signal: new AbortController().signal });
  return response.outcome.outcome === "selected" ? response.outcome.optionId : "cancelled";
};

test("first matching rule wins; kind, title (substring or RegExp) and path criteria all must match", async () => {
  const policy = rules(
    [
      { kind: "execute", title: /\brm\b/, decision: "reject" },
      { kind: ["read", "search"], decision: "allow" },
      { kind: "edit", path: "/work/app", decision: "allow" },
      { title: "deploy", decision: "ask" },
    ],
    denyAll(),
    { ask: allowAll() },
  );
  assert.equal(await answer(policy, request({ kind: "execute", title: "rm -rf build" })), "no");
  assert.equal(await answer(policy, request({ kind: "execute", title: "npm test" })), "no"); // no match: fallback
  assert.equal(await answer(policy, request({ kind: "search", title: "grep" })), "yes");
  assert.equal(await answer(policy, request({ kind: "edit", locations: [{ path: "/work/app/src/a.ts" }] })), "yes");
  assert.equal(await answer(policy, request({ kind: "edit", locations: [{ path: "/work/apple/a.ts" }] })), "no");
  assert.equal(await answer(policy, request({ kind: "edit" })), "no"); // an allow path rule needs a path
  assert.equal(await answer(policy, request({ kind: "other", title: "Deploy to prod" })), "yes"); // ask -> options.ask
});

test("allow path rules need every path inside; reject path rules fire on any path; .. cannot escape", async () => {
  const policy = rules(
    [
      { path: "**/.env", decision: "reject" },
      { kind: "edit", path: ["/work/app", "/tmp/**"], decision: "allow" },
    ],
    denyAll(),
  );
  const edit = (paths: string[], rawInput?: unknown) =>
    request({ kind: "edit", locations: paths.map((path) => ({ path })), rawInput });
  assert.equal(await answer(policy, edit(["/work/app/a.ts", "/tmp/x/y"])), "yes");
  assert.equal(await answer(policy, edit(["/work/app/a.ts", "/etc/passwd"])), "no");
  assert.equal(await answer(policy, edit(["/work/app/../../etc/passwd"])), "no");
  assert.equal(await answer(policy, edit(["/work/app/.env"])), "no");
  assert.equal(await answer(policy, edit(["/work/app/a.ts"], { file_path: "/etc/hosts" })), "no");
  assert.equal(await answer(policy, edit([], { filePath: "/work/app/b.ts" })), "yes");
});

test("ask rules without options.ask go to the fallback", async () => {
  let asked = 0;
  const policy = rules(
    [{ kind: "execute", decision: "ask" }, { decision: "allow" }],
    interactive(() => (asked++, "no")),
  );
  assert.equal(await answer(policy, request({ kind: "execute" })), "no");
  assert.equal(await answer(policy, request({ kind: "read" })), "yes");
  assert.equal(asked, 1);
});

test("requestPaths reads locations and path-like rawInput keys", () => {
  const paths = requestPaths(
    request({
      locations: [{ path: "/a/b.ts", line: 2 }],
      rawInput: {
        path: "/a/./c.ts",
        paths: ["/d", 3],
        abs_path: "/e",
        targetPath: "/f",
        command: "/not/a/path",
        cwd: "/w",
      },
    }),
  );
  assert.deepEqual(paths.sort(), ["/a/b.ts", "/a/c.ts", "/d", "/e", "/f", "/w"]);
});

test("paths and globs", () => {
  assert.equal(normalizePath("/a/b/../c/./d/"), "/a/c/d");
  assert.equal(normalizePath("/../../x"), "/x");
  assert.equal(normalizePath("C:\\work\\a"), "C:/work/a");
  assert.equal(normalizePath("a/../../b"), "../b");
  assert.ok(globToRegExp("/src/**/*.ts").test("/src/a.ts"));
  assert.ok(globToRegExp("/src/**/*.ts").test("/src/x/y/a.ts"));
  assert.ok(!globToRegExp("/src/*.ts").test("/src/x/a.ts"));
  assert.ok(globToRegExp("/src/?.[jt]s").test("/src/a.js"));
  assert.ok(!globToRegExp("/src/[!a]*").test("/src/abc"));
  assert.ok(globToRegExp("/a+b(c)/*").test("/a+b(c)/d"));
  assert.ok(pathMatcher("/work/")("/work"));
  assert.ok(pathMatcher("/work")("/work/x"));
  assert.ok(!pathMatcher("/work")("/workx"));
});
