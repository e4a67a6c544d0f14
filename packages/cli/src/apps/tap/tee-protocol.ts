/**
 * How the tap hands a copy of the traffic to its analyzer process: one JSON line of options, then records of
 * `[kind: 1 byte][length: 4 bytes, big endian][bytes]`, kind 0 = client bytes, 1 = agent bytes, 2 = end of the
 * client's output, 3 = end of the agent's output.
 */
import type { Side } from "@acpkit/sdk";

export interface AnalyzerOptions {
  tool: { name: string; version: string };
  argv: readonly string[];
  tracePath?: string;
  reportPath?: string;
  quiet?: boolean;
}

export const KIND = { client: 0, agent: 1, endClient: 2, endAgent: 3 } as const;

/** A record for `bytes` written by `from`. */
export function dataRecord(from: Side, bytes: Uint8Array): Uint8Array[] {
  const head = new Uint8Array(5);
  head[0] = from === "client" ? KIND.client : KIND.agent;
  new DataView(head.buffer).setUint32(1, bytes.length);
  return [head, bytes];
}

/** A record saying `from`'s output ended. */
export function endRecord(from: Side): Uint8Array {
  const head = new Uint8Array(5);
  head[0] = from === "client" ? KIND.endClient : KIND.endAgent;
  return head;
}

/** Reassembles records from chunks. */
export class RecordReader {
  private buffered: Uint8Array = new Uint8Array(0);

  constructor(private readonly onRecord: (kind: number, bytes: Uint8Array) => void) {}

  push(chunk: Uint8Array): void {
    let data = this.buffered.length === 0 ? chunk : concat(this.buffered, chunk);
    let at = 0;
    while (data.length - at >= 5) {
      const length = new DataView(data.buffer, data.byteOffset + at + 1, 4).getUint32(0);
      if (data.length - at - 5 < length) break;
      this.onRecord(data[at]!, data.subarray(at + 5, at + 5 + length));
      at += 5 + length;
    }
    data = data.subarray(at);
    this.buffered = data.length === 0 ? new Uint8Array(0) : data.slice();
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
