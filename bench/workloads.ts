/**
 * Workload definitions and message factories shared by all three implementations, so that the bytes on the wire
 * are the same whichever implementation sends them. The agent learns what to do from the text of the
 * `session/prompt` (a small JSON command), which is also identical for every implementation.
 *
 * Shapes follow schema/v1/schema.json (SessionUpdate variants ContentChunk, ToolCall, ToolCallUpdate, UsageUpdate).
 */

export type WorkloadId = "a" | "b" | "c" | "d" | "e";
export const ALL_WORKLOADS: readonly WorkloadId[] = ["a", "b", "c", "d", "e"];

/** What the prompt asks the agent to do. `gc` makes the agent collect garbage and record its idle RSS. */
export type Command = { w: "a" | "c" | "e"; n: number } | { w: "b" } | { w: "d"; bytes: number } | { w: "gc" };

export interface WorkloadSizes {
  a: number;
  b: number;
  c: number;
  dBytes: number;
  e: number;
}

export const FULL_SIZES: WorkloadSizes = { a: 200_000, b: 20_000, c: 50_000, dBytes: 20 * 1024 * 1024, e: 200_000 };

export function sizesFor(quick: boolean): WorkloadSizes {
  if (!quick) return FULL_SIZES;
  return {
    a: FULL_SIZES.a / 10,
    b: FULL_SIZES.b / 10,
    c: FULL_SIZES.c / 10,
    dBytes: 2 * 1024 * 1024,
    e: FULL_SIZES.e / 10,
  };
}

export const WORKLOAD_TITLES: Record<WorkloadId, string> = {
  a: "(a) agent_message_chunk stream in one prompt turn",
  b: "(b) sequential session/prompt round trips",
  c: "(c) mixed updates (tool_call_update, usage_update, tool_call, agent_message_chunk)",
  d: "(d) fs/read_text_file answered with a large text",
  e: "(e) sender does not await its notifications",
};

export const PROTOCOL_VERSION = 1;
export const INITIALIZE_PARAMS = {
  protocolVersion: PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: false },
  clientInfo: { name: "acpkit-bench-client", version: "0.0.0" },
};
export const INITIALIZE_RESULT = {
  protocolVersion: PROTOCOL_VERSION,
  agentCapabilities: { loadSession: false },
  authMethods: [],
};
export const NEW_SESSION_PARAMS = { cwd: "/tmp/acpkit-bench", mcpServers: [] };
export const SESSION_ID = "sess_bench_1";
export const END_TURN = { stopReason: "end_turn" } as const;

export function promptParams(sessionId: string, command: Command) {
  return { sessionId, prompt: [{ type: "text", text: JSON.stringify(command) }] };
}

/** Reads the command back out of a prompt's params (the agent side). */
export function commandOf(params: unknown): Command {
  const prompt = (params as { prompt?: Array<{ type?: string; text?: string }> }).prompt;
  const text = prompt?.[0]?.text;
  if (typeof text !== "string") throw new Error("bench prompt without a text command");
  return JSON.parse(text) as Command;
}

// ---- (a) agent_message_chunk ------------------------------------------------------------------------------------

const WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"];

/** 64 deterministic chunk texts of 20 to 40 characters. */
export const CHUNK_TEXTS: readonly string[] = Array.from({ length: 64 }, (_, i) => {
  let text = `${i} `;
  for (let k = 0; text.length < 20 + (i % 21); k++) text += `${WORDS[(i * 7 + k) % WORDS.length]} `;
  return text.slice(0, 20 + (i % 21));
});

/**
 * The text of the i-th chunk: CHUNK_TEXTS[i % 64] with its leading number replaced by i, cut to the same length (so
 * every chunk is exactly as long as before, and the bytes on the wire are as many). The receiver reads i back with
 * `chunkIndex` and so sees any reordering.
 */
export function chunkText(i: number): string {
  const base = CHUNK_TEXTS[i & 63]!;
  return `${i} ${base.slice(base.indexOf(" ") + 1)}`.slice(0, base.length);
}

/** The index a chunk text carries (`chunkText`), or NaN. */
export function chunkIndex(text: string | undefined): number {
  return text === undefined ? Number.NaN : Number.parseInt(text, 10);
}

export function chunkUpdate(i: number) {
  return { sessionUpdate: "agent_message_chunk", content: { type: "text", text: chunkText(i) } } as const;
}

// ---- (c) mixed updates ---------------------------------------------------------------------------------------------

/**
 * The kind of the i-th update of workload (c): in every 20, 9 tool_call_update, 7 usage_update, 2 tool_call, 2 chunks.
 */
export function mixedKind(i: number): "tool_call_update" | "usage_update" | "tool_call" | "agent_message_chunk" {
  const r = i % 20;
  if (r === 0 || r === 10) return "tool_call";
  if (r === 5 || r === 15) return "agent_message_chunk";
  return r % 2 === 1 ? "tool_call_update" : "usage_update";
}

export function mixedUpdate(i: number): Record<string, unknown> {
  const call = `call_${Math.floor(i / 10)}`;
  switch (mixedKind(i)) {
    case "tool_call":
      return {
        sessionUpdate: "tool_call",
        toolCallId: call,
        title: `Run npm test in packages/pkg-${i % 17}`,
        kind: "execute",
        status: "pending",
        locations: [{ path: `/repo/packages/pkg-${i % 17}/src/entries/index.ts`, line: (i % 400) + 1 }],
        rawInput: { command: "npm", args: ["test", "--", `--shard=${i % 4}`], cwd: `/repo/packages/pkg-${i % 17}` },
      };
    case "agent_message_chunk":
      return chunkUpdate(i);
    case "tool_call_update": {
      const done = i % 10 === 9;
      return {
        sessionUpdate: "tool_call_update",
        toolCallId: call,
        status: done ? "completed" : "in_progress",
        content: [
          { type: "content", content: { type: "text", text: `PASS test/case-${i % 97}.test.ts (${i % 53} ms)` } },
        ],
        rawOutput: {
          exitCode: done ? 0 : null,
          stdout: `ok ${i % 1000} - case ${i % 97}\n`,
          stderr: "",
          durationMs: i % 5000,
        },
      };
    }
    case "usage_update": {
      const update: Record<string, unknown> = {
        sessionUpdate: "usage_update",
        used: 1000 + (i % 150_000),
        size: 200_000,
      };
      if (i % 4 === 0) update.cost = { amount: Math.round(i * 0.37) / 1000, currency: "USD" };
      return update;
    }
  }
}

/** How many updates of each kind workload (c) sends for `n` updates (the client checks its counts against this). */
export function expectedMixedCounts(n: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < n; i++) counts[mixedKind(i)] = (counts[mixedKind(i)] ?? 0) + 1;
  return counts;
}

// ---- (d) large text file -------------------------------------------------------------------------------------------

export const READ_PATH_PREFIX = "/tmp/acpkit-bench/big-";

export function readPath(bytes: number): string {
  return `${READ_PATH_PREFIX}${bytes}.txt`;
}

const textCache = new Map<number, string>();

/** A deterministic ASCII text of exactly `bytes` characters, in lines of about 80 characters (like source code). */
export function bigText(bytes: number): string {
  let text = textCache.get(bytes);
  if (text !== undefined) return text;
  const line = "export const value_0000 = computeSomething(alpha, beta, gamma) + 42; // bench\n"; // 80 chars
  const lines: string[] = [];
  for (let total = 0, i = 0; total < bytes; i++) {
    const l = line.replace("0000", String(i % 10000).padStart(4, "0"));
    lines.push(l);
    total += l.length;
  }
  text = lines.join("").slice(0, bytes);
  textCache.clear(); // keep at most one big text alive
  textCache.set(bytes, text);
  return text;
}

/** Bytes of the JSON-RPC response line that carries a `bytes`-long text (what the agent must receive). */
export function readResponseWireBytes(bytes: number): number {
  return Buffer.byteLength(JSON.stringify({ jsonrpc: "2.0", id: 0, result: { content: bigText(bytes) } })) + 1;
}
