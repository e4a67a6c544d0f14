/**
 * Frames too large to read, and ids a JS number cannot hold, over real pipes to real child processes:
 * whoever waits on an oversized frame is told wherever its `"id"` stands (client and agent side), and an id
 * beyond 2^53 is echoed with its exact text.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ClientSideConnection, MessageTooLargeError } from "../../src/entries/index.js";
import { launchAgent } from "../../src/entries/node.js";

const fromSource = import.meta.url.endsWith(".ts");
const fixture = fileURLToPath(new URL(`./fixtures/oversized-peer.${fromSource ? "ts" : "js"}`, import.meta.url));
const nodeArgs = fromSource ? ["--import", "tsx", fixture] : [fixture];
const SMALL_LIMIT = 64 * 1024;
const toClient = () => ({
  requestPermission: () => ({ outcome: { outcome: "cancelled" as const } }),
  sessionUpdate: () => {},
});

/** Fails instead of hanging: the bug under test is a wait without end. */
function within<T>(promise: Promise<T>, what: string, ms = 30_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const bound = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)),
  );
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

/** A child process spoken to line by line, raw. */
class RawPeer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  #waiters: Array<() => void> = [];

  constructor(flag: string) {
    this.child = spawn(process.execPath, [...nodeArgs, flag], { stdio: ["pipe", "pipe", "pipe"] });
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      this.lines.push(line);
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  write(text: string): void {
    this.child.stdin.write(`${text}\n`);
  }

  /** The first line (from the start) that `match` accepts. */
  async lineWhere(match: (line: string) => boolean): Promise<string> {
    for (;;) {
      const found = this.lines.find(match);
      if (found !== undefined) return found;
      if (this.child.exitCode !== null) throw new Error(`the peer exited; it wrote: ${this.lines.join("\n")}`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  stop(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}

const peers: RawPeer[] = [];
after(() => peers.forEach((peer) => peer.stop()));
const rawPeer = (flag: string) => {
  const peer = new RawPeer(flag);
  peers.push(peer);
  return peer;
};
const INIT = '"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}';

test(
  "client side: a response too large whose id comes after its body rejects its request with " + "MessageTooLargeError",
  async () => {
    const launched = await launchAgent({
      argv: [process.execPath, ...nodeArgs, "--big-reply-agent"],
      maxMessageBytes: SMALL_LIMIT,
    });
    const connection = new ClientSideConnection(toClient, launched.stream);
    try {
      await assert.rejects(
        within(connection.initialize({ protocolVersion: 1, clientCapabilities: {} }), "initialize"),
        (error) => {
          assert.ok(error instanceof MessageTooLargeError, String(error));
          assert.equal(error.maxMessageBytes, SMALL_LIMIT);
          assert.ok(error.messageBytes! > 200_000, `size ${error.messageBytes}`);
          return true;
        },
      );
      assert.equal(
        (await within(connection.newSession({ cwd: "/", mcpServers: [] }), "session/new")).sessionId,
        "s1",
        "the connection keeps working",
      );
    } finally {
      connection.close();
      await launched.stop();
    }
  },
);

test(
  "agent side: a request too large whose id comes after its " + "body is answered with an error saying the limit",
  async () => {
    const agent = rawPeer("--small-limit-agent");
    agent.write(`{"jsonrpc":"2.0","id":0,${INIT}}`);
    await within(
      agent.lineWhere((line) => line.includes('"id":0')),
      "initialize",
    );
    const prompt = JSON.stringify({ sessionId: "s1", prompt: [{ type: "text", text: "y".repeat(200_000) }] });
    agent.write(`{"jsonrpc":"2.0","method":"session/prompt","params":${prompt},"id":"late-id"}`);
    const reply = JSON.parse(
      await within(
        agent.lineWhere((line) => line.includes('"late-id"')),
        "the oversized request",
      ),
    ) as {
      error: { code: number; message: string; data: { maxMessageBytes: number; messageBytes: number } };
    };
    assert.equal(reply.error.code, -32600);
    assert.equal(reply.error.data.maxMessageBytes, SMALL_LIMIT);
    assert.ok(reply.error.data.messageBytes > 200_000);
    assert.match(
      reply.error.message,
      /"session\/prompt" request is \d+ bytes, over this side's 65536-byte message limit; send less/,
    );
    agent.write('{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}');
    assert.match(
      await within(
        agent.lineWhere((line) => line.includes('"id":2')),
        "the next request",
      ),
      /"sessionId":"s1"/,
    );
  },
);

test(
  "ids beyond 2^53 come back with their exact text, in " + "results, errors and refusals of oversized requests",
  async () => {
    const agent = rawPeer("--small-limit-agent");
    agent.write(`{"jsonrpc":"2.0","id":12345678901234567890123,${INIT}}`);
    const result = await within(
      agent.lineWhere((line) => line.includes('"result"')),
      "initialize",
    );
    assert.match(result, /^\{"jsonrpc":"2\.0","id":12345678901234567890123,"result":/);
    agent.write('{"jsonrpc":"2.0","id":9007199254740993,"method":"no/such_method"}');
    assert.match(
      await within(
        agent.lineWhere((line) => line.includes("-32601")),
        "the unknown method",
      ),
      /^\{"jsonrpc":"2\.0","id":9007199254740993,"error":/,
    );
    agent.write(
      `{"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"${"z".repeat(100_000)}"}]},"id":18014398509481985}`,
    );
    assert.match(
      await within(
        agent.lineWhere((line) => line.includes("-32600")),
        "the oversized request",
      ),
      /^\{"jsonrpc":"2\.0","id":18014398509481985,"error":/,
    );
  },
);
