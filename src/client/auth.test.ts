import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestError } from "../jsonrpc/request-error.js";
import type { AuthMethod } from "../protocol/index.js";
import { authMethodKind, chooseAuthMethod, describeAuthMethods, isAuthRequired } from "./auth.js";

const token: AuthMethod = { id: "token", name: "API token", description: "reads ACME_TOKEN" };
const oauth: AuthMethod = { id: "oauth", name: "Browser login" };
const login: AuthMethod = { type: "terminal", id: "login", name: "Log in", args: ["--login"] };
const terminalCaps = { auth: { terminal: true } };

test("kinds, descriptions and the auth_required check", () => {
  assert.equal(authMethodKind(token), "agent");
  assert.equal(authMethodKind(login), "terminal");
  assert.equal(authMethodKind({ id: "x", type: "env_var" }), "unknown");
  assert.equal(
    describeAuthMethods([token, login]),
    "  token (agent): API token — reads ACME_TOKEN\n  login (terminal): Log in",
  );
  assert.ok(isAuthRequired(RequestError.authRequired()));
  assert.ok(isAuthRequired({ code: -32000 }));
  assert.ok(!isAuthRequired(RequestError.internalError()));
});

test("without --auth: the single agent method, else the single usable one, else a clear request to choose", () => {
  assert.deepEqual(chooseAuthMethod({ methods: [token, login] }), { kind: "agent", method: token });
  assert.deepEqual(chooseAuthMethod({ methods: [login], clientCapabilities: terminalCaps }), {
    kind: "terminal",
    method: login,
  });
  const noTerminal = chooseAuthMethod({ methods: [login] });
  assert.equal(noTerminal.kind, "impossible");
  assert.match(
    (noTerminal as { message: string }).message,
    /none of its methods can run here[\s\S]*login \(terminal\)/,
  );
  const two = chooseAuthMethod({ methods: [token, oauth] });
  assert.match(
    (two as { message: string }).message,
    /choose a method with --auth ID[\s\S]*token \(agent\)[\s\S]*oauth \(agent\)/,
  );
  assert.match((chooseAuthMethod({ methods: [] }) as { message: string }).message, /lists no authentication method/);
});

test(
  "a type this client does not know (codex-acp's env_var): never " + "picked alone, sent as authenticate when named",
  () => {
    const envVar = {
      type: "env_var",
      id: "openai-api-key",
      name: "Use OPENAI_API_KEY",
      vars: [{ name: "OPENAI_API_KEY" }],
    } as unknown as AuthMethod;
    assert.deepEqual(chooseAuthMethod({ methods: [envVar], requested: "openai-api-key" }), {
      kind: "agent",
      method: envVar,
      unknownType: "env_var",
    });
    const alone = chooseAuthMethod({ methods: [envVar] });
    assert.equal(alone.kind, "impossible");
    assert.match(
      (alone as { message: string }).message,
      /openai-api-key \(type env_var, unknown to this client: usable only when named with --auth\): Use OPENAI_API_KEY/,
    );
    assert.deepEqual(
      chooseAuthMethod({ methods: [envVar, token] }),
      { kind: "agent", method: token },
      "the one known agent method is still picked alone",
    );
  },
);

test("older shapes: no type, or an explicit agent type, are agent methods", () => {
  const explicit = { type: "agent", id: "key", name: "Key" } as unknown as AuthMethod;
  assert.equal(authMethodKind(explicit), "agent");
  assert.deepEqual(chooseAuthMethod({ methods: [explicit], requested: "key" }), { kind: "agent", method: explicit });
  assert.deepEqual(
    chooseAuthMethod({
      methods: [{ id: "legacy", name: "Legacy", _meta: { "terminal-auth": { command: "x" } } }],
      requested: "legacy",
    }).kind,
    "agent",
  );
});

test("with --auth: that method, if listed and runnable here", () => {
  assert.deepEqual(chooseAuthMethod({ methods: [token, oauth], requested: "oauth" }), { kind: "agent", method: oauth });
  assert.deepEqual(chooseAuthMethod({ methods: [login], requested: "login", clientCapabilities: terminalCaps }), {
    kind: "terminal",
    method: login,
  });
  assert.match(
    (chooseAuthMethod({ methods: [token], requested: "nope" }) as { message: string }).message,
    /no authentication method "nope"[\s\S]*token/,
  );
  assert.match(
    (
      chooseAuthMethod({
        methods: [login],
        requested: "login",
        clientCapabilities: terminalCaps,
        interactive: false,
      }) as { message: string }
    ).message,
    /runs in a terminal/,
  );
});
