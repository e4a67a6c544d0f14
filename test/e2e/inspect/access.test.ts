/**
 * Who gets anything from `acp inspect`: only the page opened with the printed URL. No token, a wrong token, a
 * foreign Host (DNS rebinding) or a foreign Origin (another web page in the browser) get a refusal and nothing
 * else: not the page's HTML, not a socket. And the command's usage errors (exit 2, what to do).
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import { bearerSubprotocol } from "../../../src/remote/http-protocol.js";
import { acp } from "../wire/support.js";
import { REFERENCE_AGENT, startInspector, tempDir, type Inspector } from "./support.js";

const TOKEN = "inspect-access-token";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Opens a WebSocket; resolves with "open" or the HTTP status of the refusal. */
function socket(url: string, protocols: string[], headers: Record<string, string> = {}): Promise<string | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, protocols, { headers });
    ws.on("open", () => {
      ws.close();
      resolve("open");
    });
    ws.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    ws.on("error", () => resolve(-1));
  });
}

describe("acp inspect: access", () => {
  const dir = tempDir("acpkit-inspect-access-");
  let inspector: Inspector;
  let base: string;
  let host: string;
  before(async () => {
    inspector = await startInspector(["--token", TOKEN, "--", ...REFERENCE_AGENT], { cwd: join(dir, "work") });
    base = inspector.url.replace(/\?.*$/, "");
    host = new URL(base).host;
  });
  after(async () => {
    assert.equal(await inspector.stop(), 0, "SIGTERM stops the inspector cleanly");
    rmSync(dir, { recursive: true, force: true });
  });

  it("prints a loopback URL with the token; that URL gets the page", async () => {
    assert.equal(inspector.url, `${base}?token=${TOKEN}`);
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await get(inspector.url);
    assert.equal(page.status, 200);
    assert.match(page.body, /<title>acp inspect<\/title>/);
    assert.match(String(page.headers["content-security-policy"]), /default-src 'none'; script-src 'nonce-/);
    assert.equal(page.headers["referrer-policy"], "no-referrer");
  });

  it("the client worker's script: with the token only, under its own policy", async () => {
    const worker = await get(`${base}worker.js?token=${TOKEN}`);
    assert.equal(worker.status, 200);
    assert.match(String(worker.headers["content-type"]), /^text\/javascript/);
    assert.match(String(worker.headers["content-security-policy"]), /^default-src 'none'; connect-src ws:\/\//);
    for (const url of [`${base}worker.js`, `${base}worker.js?token=wrong`]) {
      const refused = await get(url);
      assert.equal(refused.status, 401);
      assert.doesNotMatch(refused.body, /ClientSideConnection|function/);
    }
    assert.equal((await get(`${base}worker.js?token=${TOKEN}`, { origin: "http://evil.example" })).status, 403);
  });

  for (const [name, url, headers] of [
    ["no token", () => base, {}],
    ["a wrong token", () => `${base}?token=not-the-token`, {}],
    ["the token in a header instead of the URL", () => base, { authorization: `Bearer ${TOKEN}` }],
    ["a foreign Origin, with the right token", () => `${base}?token=${TOKEN}`, { origin: "http://evil.example" }],
    ["Origin: null, with the right token", () => `${base}?token=${TOKEN}`, { origin: "null" }],
    ["a foreign Host (DNS rebinding), with the right token", () => `${base}?token=${TOKEN}`, { host: "evil.example" }],
  ] as const) {
    it(`${name}: refused, and nothing of the page`, async () => {
      const answer = await get(url(), { ...headers });
      assert.ok(answer.status === 401 || answer.status === 403, `status ${answer.status}`);
      assert.doesNotMatch(answer.body, /<html|<script|acp inspect<\/title>/i);
      assert.match(String(answer.headers["content-type"]), /^text\/plain/);
      assert.ok(answer.body.length < 300, "a one-line reason");
    });
  }

  it("the sockets: the token's subprotocol and the page's own origin open them; anything else is refused", async () => {
    const feed = `ws://${host}/feed`;
    const lane = `ws://${host}/acp?client=test`;
    const own = { origin: `http://${host}` };
    assert.equal(await socket(feed, ["acp-inspect", bearerSubprotocol(TOKEN)], own), "open");
    assert.equal(await socket(lane, ["acp", bearerSubprotocol(TOKEN)], own), "open");
    assert.equal(await socket(feed, ["acp-inspect"], own), 401);
    assert.equal(await socket(feed, ["acp-inspect", bearerSubprotocol("wrong")], own), 401);
    assert.equal(await socket(lane, ["acp", bearerSubprotocol("wrong")], own), 401);
    assert.equal(await socket(feed, ["acp-inspect", bearerSubprotocol(TOKEN)], { origin: "http://evil.example" }), 403);
    assert.equal(await socket(lane, ["acp", bearerSubprotocol(TOKEN)], { origin: "http://evil.example" }), 403);
    assert.equal(await socket(feed, ["acp-inspect", bearerSubprotocol(TOKEN)], { host: "evil.example" }), 403);
  });
});

describe("acp inspect: usage", () => {
  it("--attach to a server that is not there: it says so and exits 2", async () => {
    const run = await acp(["inspect", "--attach", "http://127.0.0.1:1/acp", "sess_1"]);
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /acp inspect: cannot attach to sess_1: cannot reach http:\/\/127.0.0.1:1\/acp .*acp serve/,
    );
    assert.equal(run.stdout, "");
  });

  it("--tap without an agent command, unknown flags, a bad port: exit 2 with what to do", async () => {
    for (const [args, message] of [
      [["--tap"], /--tap needs the agent's command after --/],
      [["--frobnicate"], /unknown argument "--frobnicate"; put the agent's command after --/],
      [["--port", "99999"], /--port needs a port number from 0 to 65535/],
      [["--url", "ftp://x"], /--url needs an http\(s\):\/\/ or ws\(s\):\/\/ URL/],
      [["--url", "ws://127.0.0.1:1/acp", "--", "agent"], /either --url or an agent command/],
    ] as const) {
      const run = await acp(["inspect", ...args]);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, message);
    }
  });

  it("--help prints the usage", async () => {
    const run = await acp(["inspect", "--help"]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^Usage: acp inspect/);
  });
});
