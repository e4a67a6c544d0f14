import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestError } from "../../jsonrpc/request-error.js";
import type { AuthMethod } from "../../protocol/index.js";
import { AuthFailure, authenticateWith, withAuthentication, type AuthContext } from "./authenticate.js";

const authRequired = () => new RequestError(-32000, "log in first");

function context(methods: AuthMethod[], overrides: Partial<AuthContext> = {}) {
  const calls: string[] = [];
  const notes: string[] = [];
  const value: AuthContext = {
    connection: { authenticate: async ({ methodId }) => void calls.push(methodId) },
    methods,
    clientCapabilities: { auth: { terminal: true } },
    interactive: true,
    agentArgv: ["agent"],
    cwd: "/w",
    note: (text) => void notes.push(text),
    ...overrides,
  };
  return { value, calls, notes };
}

test("auth_required: authenticates with the one method offered and opens again", async () => {
  const { value, calls, notes } = context([{ id: "token", name: "API token" }]);
  let opened = 0;
  const result = await withAuthentication(value, async () => {
    if (++opened === 1 || calls.length === 0) throw authRequired();
    return "session";
  });
  assert.equal(result, "session");
  assert.deepEqual(calls, ["token"]);
  assert.deepEqual(notes, [
    "the agent requires authentication (log in first)",
    'authenticating with "token" (API token)',
  ]);
});

test("no auth_required: nothing happens; other errors pass through", async () => {
  const { value, calls } = context([{ id: "token", name: "T" }]);
  assert.equal(await withAuthentication(value, async () => 1), 1);
  await assert.rejects(
    withAuthentication(value, async () => Promise.reject(new Error("boom"))),
    /boom/,
  );
  assert.deepEqual(calls, []);
});

test(
  "failures: two methods and none asked for, still required after the method, after --auth, a failing " +
    "authenticate",
  async () => {
    const two = context([
      { id: "a", name: "A" },
      { id: "b", name: "B" },
    ]);
    await assert.rejects(
      withAuthentication(two.value, async () => Promise.reject(authRequired())),
      (error) => error instanceof AuthFailure && /choose a method with --auth ID/.test(error.message),
    );
    const one = context([{ id: "a", name: "A" }]);
    await assert.rejects(
      withAuthentication(one.value, async () => Promise.reject(authRequired())),
      /still requires authentication after "a": log in first/,
    );
    await assert.rejects(
      withAuthentication(one.value, async () => Promise.reject(authRequired()), "a"),
      /still requires authentication after "a" \(log in first\)/,
    );
    const failing = context([{ id: "a", name: "A" }], {
      connection: { authenticate: async () => Promise.reject(new Error("bad token")) },
    });
    await assert.rejects(authenticateWith(failing.value, "a"), /authentication with "a" failed: bad token/);
    await assert.rejects(authenticateWith(one.value, "zzz"), /has no authentication method "zzz"/);
  },
);

test("a terminal method runs the agent's login command; a non-zero exit is a failure", async () => {
  const runs: unknown[] = [];
  const method: AuthMethod = { id: "login", name: "Log in", type: "terminal", args: ["--login"] };
  const ok = context([method], {
    runTerminal: async (argv, m, cwd) => (runs.push([argv, m.id, cwd]), { code: 0, signal: null }),
  });
  assert.equal(await authenticateWith(ok.value, "login"), "login");
  assert.deepEqual(runs, [[["agent"], "login", "/w"]]);
  const bad = context([method], { runTerminal: async () => ({ code: 3, signal: null }) });
  await assert.rejects(authenticateWith(bad.value, "login"), /the terminal login "login" exited with code 3/);
  const notInteractive = context([method], { interactive: false });
  await assert.rejects(authenticateWith(notInteractive.value, "login"), /runs in a terminal/);
});

test(
  "--auth naming a method of an unknown type: authenticate is " + "sent, with a note saying the type is unknown",
  async () => {
    const { value, calls, notes } = context([
      { type: "env_var", id: "codex-api-key", name: "Use CODEX_API_KEY" } as unknown as AuthMethod,
    ]);
    assert.equal(await authenticateWith(value, "codex-api-key"), "codex-api-key");
    assert.deepEqual(calls, ["codex-api-key"]);
    assert.match(
      notes[0]!,
      /^authentication method "codex-api-key" has type "env_var", which this client does not know; sending it as authenticate, as asked/,
    );
  },
);
