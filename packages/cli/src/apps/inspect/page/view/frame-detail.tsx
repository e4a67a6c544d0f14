/**
 * One frame whole: what it is, its pair (a link), its findings (rule, severity, side, message, spec section, the
 * JSON path), and the frame as a JSON tree with the failing paths marked; the exact text for a frame that was not
 * JSON.
 */
import type { JSX } from "preact";
import type { FrameRow } from "../model/frames.js";
import type { LaneModel } from "../model/lane.js";
import { JsonTree } from "./json-tree.js";
import { rowLabel } from "./timeline.js";

export function FrameDetail({
  row,
  lane,
  onSelect,
}: {
  row: FrameRow;
  lane: LaneModel;
  onSelect: (index: number) => void;
}): JSX.Element {
  let value: unknown;
  let parsed = false;
  if (row.type !== "unparsable" && row.type !== "oversized") {
    try {
      value = JSON.parse(row.text);
      parsed = true;
    } catch {
      parsed = false;
    }
  }
  const paths = (row.findings ?? []).map((finding) => finding.path).filter((path): path is string => !!path);
  const pair = row.pair !== undefined ? lane.frames.rows[row.pair] : undefined;
  return (
    <div class="detail" aria-label={`frame ${row.index}`} role="region" data-testid="frame-detail">
      <div class="detail-head">
        <strong>
          #{row.index} {row.from === "client" ? "client → agent" : "agent → client"} · {rowLabel(row)}
        </strong>
        {row.sessionId ? <span> · session {row.sessionId}</span> : null}
        {pair ? (
          <button type="button" class="link" onClick={() => onSelect(pair.index)}>
            {row.type === "response" ? `its request: #${pair.index}` : `its answer: #${pair.index}`}
            {row.latency !== undefined || pair.latency !== undefined
              ? ` (${(row.latency ?? pair.latency)!.toFixed(1)} ms)`
              : ""}
          </button>
        ) : row.type === "request" ? (
          <span class="muted"> · not answered yet</span>
        ) : null}
        <button type="button" class="link" onClick={() => void navigator.clipboard?.writeText(row.text)}>
          copy
        </button>
      </div>
      {row.findings && row.findings.length > 0 ? (
        <ul class="findings" aria-label="findings about this frame">
          {row.findings.map((finding, i) => (
            <li key={i} class={`finding ${finding.severity}`} data-testid="finding">
              <span class="sev">{finding.severity}</span> <strong>{finding.rule}</strong> ({finding.side}):{" "}
              {finding.message}
              {finding.path ? (
                <>
                  {" "}
                  at <code class="path">{finding.path}</code>
                </>
              ) : null}{" "}
              <a href={finding.spec} target="_blank" rel="noopener noreferrer">
                spec
              </a>
            </li>
          ))}
        </ul>
      ) : null}
      {parsed ? <JsonTree value={value} highlight={paths} /> : <pre class="raw">{row.text}</pre>}
    </div>
  );
}
