/**
 * The lane's tools: export its frames as a cassette (the library's recorder), import a cassette as a lane of its
 * own, step through a recorded lane frame by frame, replay it against the live agent with the divergences shown
 * (each a link to the recorded frame), and run `acp check agent` on the agent command with its report (each
 * failure with its findings, JSON path, quoted frame and spec section).
 */
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { readCassette, type Divergence, type ReplayResult } from "@acpkit/sdk/wire";
import { JsonTree } from "./json-tree.js";
import type { ServerMessage } from "../../feed-protocol.js";
import type { Feed } from "../model/feed.js";
import type { LaneModel } from "../model/lane.js";
import { replayAgainstAgent } from "../model/replay.js";
import type { Store } from "../model/store.js";

export interface ToolsContext {
  store: Store;
  feed: Feed;
  host: string;
  token: string;
}

export function Tools({ context, lane }: { context: ToolsContext; lane: LaneModel | undefined }): JSX.Element {
  const { store } = context;
  const hello = store.hello;
  return (
    <section class="tools" aria-label="tools">
      <div class="tool-row">
        <button
          type="button"
          disabled={!lane || lane.frames.rows.length === 0}
          onClick={() => lane && exportLane(lane, store)}
        >
          Export cassette
        </button>
        <label class="button">
          Import cassette
          <input
            type="file"
            accept=".cassette,.ndjson,.jsonl,.txt,application/x-ndjson"
            class="visually-hidden"
            onChange={(e) => {
              const file = (e.currentTarget as HTMLInputElement).files?.[0];
              if (file) void file.text().then((text) => importCassette(store, file.name, text));
              (e.currentTarget as HTMLInputElement).value = "";
            }}
          />
        </label>
        {hello?.canCheck ? <CheckButton context={context} /> : null}
      </div>
      {lane?.recorded ? <RecordedControls context={context} lane={lane} /> : null}
    </section>
  );
}

function exportLane(lane: LaneModel, store: Store): void {
  const text = lane.exportCassette({ name: "acp inspect", version: store.hello?.version ?? "0" });
  const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = `${lane.info.label.replace(/[^\w.-]+/g, "-")}.cassette`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Shows a cassette's text as a recorded lane (all frames applied, or stepped with `step`). */
export function importCassette(store: Store, name: string, text: string, stepped = false): LaneModel | undefined {
  try {
    const cassette = readCassette(text);
    const lane = store.addLocalLane(`recorded: ${name}`);
    lane.loadCassette(cassette, stepped ? 0 : cassette.entries.length);
    store.select(lane.info.id);
    return lane;
  } catch (error) {
    store.notify("error", `${name} is not a cassette: ${(error as Error).message}`);
    return undefined;
  }
}

function RecordedControls({ context, lane }: { context: ToolsContext; lane: LaneModel }): JSX.Element {
  const recorded = lane.recorded!;
  const total = recorded.cassette.entries.length;
  const [result, setResult] = useState<ReplayResult | undefined>(undefined);
  const [running, setRunning] = useState(false);
  const hello = context.store.hello;
  const replay = async () => {
    setRunning(true);
    setResult(undefined);
    try {
      setResult(
        await replayAgainstAgent(recorded.cassette, { host: context.host, token: context.token, cwd: hello!.cwd }),
      );
    } catch (error) {
      context.store.notify("error", `replay failed: ${(error as Error).message}`);
    } finally {
      setRunning(false);
    }
  };
  return (
    <div class="recorded" aria-label="recorded lane">
      <span data-testid="step-position">
        frame {recorded.applied} of {total}
      </span>
      <button type="button" disabled={recorded.applied === 0} onClick={() => lane.restart()}>
        Restart
      </button>
      <button type="button" disabled={recorded.applied >= total} onClick={() => lane.step(1)}>
        Step
      </button>
      <button type="button" disabled={recorded.applied >= total} onClick={() => lane.step(10)}>
        Step 10
      </button>
      <button type="button" disabled={recorded.applied >= total} onClick={() => lane.step(total)}>
        All
      </button>
      {hello?.canDrive ? (
        <button type="button" disabled={running} onClick={() => void replay()}>
          {running ? "Replaying…" : "Replay against the agent"}
        </button>
      ) : null}
      {result ? <Divergences result={result} lane={lane} store={context.store} /> : null}
    </div>
  );
}

function Divergences({ result, lane, store }: { result: ReplayResult; lane: LaneModel; store: Store }): JSX.Element {
  return (
    <div class="divergences" data-testid="replay-result" role="status">
      <p>
        Replay {result.completed ? "completed" : "stopped"}: {result.sent} frames sent, {result.compared} compared,{" "}
        <strong>
          {result.divergences.length === 0
            ? "no divergence"
            : `${result.divergences.length} divergence${result.divergences.length === 1 ? "" : "s"}`}
        </strong>
        .
      </p>
      <ul>
        {result.divergences.map((divergence: Divergence, i) => (
          <li key={i} class={`divergence ${divergence.kind}`} data-testid="divergence">
            <button
              type="button"
              class="link"
              onClick={() => {
                store.selectedLane = lane.info.id;
                store.selectedFrame = divergence.entry;
                store.changed();
              }}
            >
              frame #{divergence.entry}
            </button>{" "}
            <strong>{divergence.kind}</strong>: {divergence.frame}: {divergence.message}
            {divergence.differences?.length ? (
              <ul>
                {divergence.differences.map((difference, k) => (
                  <li key={k}>
                    <code class="path">{difference.path}</code>: recorded{" "}
                    <code>{JSON.stringify(difference.expected)}</code>, live{" "}
                    <code>{JSON.stringify(difference.actual)}</code>
                  </li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * A check failure's frame: as a JSON tree with the failing path marked (when the quote is whole), and a link that
 * filters the wire to the live frames of the same method with errors, where the same fault shows up in the lane.
 */
function QuotedFrame({ text, path, store }: { text: string; path: string | undefined; store: Store }): JSX.Element {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const method = /"method":"([^"]+)"/.exec(text)?.[1];
  return (
    <div class="quoted-frame">
      {value === undefined ? (
        <pre class="raw small">{text}</pre>
      ) : (
        <JsonTree value={value} highlight={path ? [path] : []} depth={1} />
      )}
      {method ? (
        <button
          type="button"
          class="link"
          onClick={() => {
            store.wireQuery = { method, errorsOnly: true, search: "" };
            store.changed();
          }}
        >
          find {method} frames with errors in the wire
        </button>
      ) : null}
    </div>
  );
}

interface ScenarioResult {
  id: string;
  title: string;
  spec: string;
  status: string;
  message?: string;
  findings: Array<{
    rule: string;
    severity: string;
    side: string;
    message: string;
    spec: string;
    path?: string;
    frame?: string;
  }>;
  durationMs: number;
}

function CheckButton({ context }: { context: ToolsContext }): JSX.Element {
  const [state, setState] = useState<{ running: boolean; report?: any; error?: string }>({ running: false });
  const [only, setOnly] = useState("");
  const run = async () => {
    setState({ running: true });
    const ids = only.split(/[\s,]+/).filter(Boolean);
    const answer = (await context.feed.ask({ type: "check", ...(ids.length ? { only: ids } : {}) })) as Extract<
      ServerMessage,
      { type: "check-result" }
    >;
    setState({ running: false, report: answer.report, ...(answer.error ? { error: answer.error } : {}) });
  };
  return (
    <div class="check-run">
      <label>
        Scenarios{" "}
        <input
          type="text"
          size={18}
          aria-label="Scenarios"
          placeholder="all (or ids, comma-separated)"
          value={only}
          onInput={(e) => setOnly((e.currentTarget as HTMLInputElement).value)}
        />
      </label>
      <button type="button" disabled={state.running} onClick={() => void run()}>
        {state.running ? "Checking…" : "Run acp check agent"}
      </button>
      {state.error ? <p class="error">{state.error}</p> : null}
      {state.report ? <CheckReport report={state.report} store={context.store} /> : null}
    </div>
  );
}

function CheckReport({
  report,
  store,
}: {
  report: { results: ScenarioResult[]; summary: Record<string, number> };
  store: Store;
}): JSX.Element {
  return (
    <div class="check-report" data-testid="check-report">
      <p>
        {Object.entries(report.summary)
          .filter(([, count]) => count > 0)
          .map(([status, count]) => `${count} ${status}`)
          .join(", ")}
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">scenario</th>
            <th scope="col">status</th>
            <th scope="col">what was found</th>
          </tr>
        </thead>
        <tbody>
          {report.results.map((result) => (
            <tr key={result.id} class={`status-${result.status}`}>
              <td>
                <a href={result.spec} target="_blank" rel="noopener noreferrer">
                  {result.id}
                </a>
              </td>
              <td>{result.status}</td>
              <td>
                {result.message ?? ""}
                {result.findings.map((finding, i) => (
                  <details key={i} class={`finding ${finding.severity}`}>
                    <summary>
                      {finding.rule} ({finding.side})
                      {finding.path ? (
                        <>
                          {" "}
                          at <code class="path">{finding.path}</code>
                        </>
                      ) : null}
                      : {finding.message}{" "}
                      <a href={finding.spec} target="_blank" rel="noopener noreferrer">
                        spec
                      </a>
                    </summary>
                    {finding.frame ? <QuotedFrame text={finding.frame} path={finding.path} store={store} /> : null}
                  </details>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
