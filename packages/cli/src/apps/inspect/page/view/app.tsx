/**
 * The page: a header (what is inspected, the connection, theme, a new client lane), the lanes (each conversation
 * the inspector relays or watches, with its frame and error counts), then the selected lane's conversation beside
 * its wire, and the lane's tools. In a narrow window the two panes stack, and a switch shows one or both.
 */
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { LaneModel } from "../model/lane.js";
import type { Store } from "../model/store.js";
import type { Actions } from "./actions.js";
import { Conversation } from "./conversation.js";
import { Dialogs } from "./dialogs.js";
import { Timeline } from "./timeline.js";
import { Tools, type ToolsContext } from "./tools.js";

export interface AppProps {
  store: Store;
  context: ToolsContext;
  actionsOf: (lane: LaneModel) => Actions | undefined;
  openClientLane: () => void;
}

const ROLE_LABEL: Record<string, string> = {
  client: "driven",
  tap: "tap",
  replay: "replay",
  observer: "observer",
  recorded: "recorded",
};

export function App({ store, context, actionsOf, openClientLane }: AppProps): JSX.Element {
  const [, setVersion] = useState(0);
  const [theme, setTheme] = useState<"auto" | "light" | "dark">("auto");
  const [panes, setPanes] = useState<"both" | "conversation" | "wire">("both");
  useEffect(() => store.subscribe(() => setVersion(store.version)), []);
  useEffect(() => {
    if (theme === "auto") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
  }, [theme]);
  const hello = store.hello;
  const lane = store.lane;
  return (
    <div class={`app panes-${panes}`}>
      <header class="top">
        <h1>acp inspect</h1>
        <span class="what" data-testid="mode">
          {hello ? describe(hello) : "connecting…"}
        </span>
        <span class={`conn ${store.connected ? "on" : "off"}`} role="status">
          {store.connected ? "connected" : store.closedReason ? `disconnected: ${store.closedReason}` : "connecting…"}
        </span>
        <span class="spacer" />
        {hello?.canDrive ? (
          <button type="button" onClick={openClientLane}>
            + Client lane
          </button>
        ) : null}
        <div class="seg" role="group" aria-label="panes">
          {(["both", "conversation", "wire"] as const).map((value) => (
            <button key={value} type="button" aria-pressed={panes === value} onClick={() => setPanes(value)}>
              {value === "both" ? "Both" : value === "conversation" ? "Conversation" : "Wire"}
            </button>
          ))}
        </div>
        <label>
          Theme{" "}
          <select
            value={theme}
            onChange={(e) => setTheme((e.currentTarget as HTMLSelectElement).value as typeof theme)}
          >
            <option value="auto">system</option>
            <option value="light">light</option>
            <option value="dark">dark</option>
          </select>
        </label>
      </header>
      <nav class="lanes" aria-label="lanes">
        <div role="tablist" aria-label="lanes">
          {[...store.lanes.values()].map((item) => (
            <button
              key={item.info.id}
              type="button"
              role="tab"
              aria-selected={item === lane}
              class={`lane-tab role-${item.info.role} ${item.closed ? "closed" : ""}`}
              onClick={() => store.select(item.info.id)}
              data-testid="lane-tab"
            >
              <span class="role">{ROLE_LABEL[item.info.role]}</span> {item.info.label}
              <span class="lane-count">{item.frames.rows.length}</span>
              {item.frames.errorCount > 0 ? <span class="lane-errors">⚠ {item.frames.errorCount}</span> : null}
              {item.closed ? <span class="muted"> (closed)</span> : null}
            </button>
          ))}
        </div>
        {hello && !hello.observe.available ? (
          <span class="muted observe-note" title={hello.observe.reason}>
            Observer attach: not available yet
          </span>
        ) : null}
      </nav>
      <Tools context={context} lane={lane} />
      <main class="panes">
        {lane ? (
          <>
            <Conversation store={store} lane={lane} actions={actionsOf(lane)} />
            <Timeline store={store} lane={lane} />
          </>
        ) : (
          <p class="hint">
            {hello?.mode === "tap"
              ? "Waiting for the editor's conversation…"
              : hello?.canDrive
                ? "Opening a client lane…"
                : "Nothing to show yet: import a cassette."}
          </p>
        )}
        {lane && lane.stderr.length > 0 ? (
          <details class="stderr">
            <summary>agent stderr ({lane.stderr.length} lines)</summary>
            <pre>{lane.stderr.slice(-200).join("\n")}</pre>
          </details>
        ) : null}
      </main>
      <div class="notices" role="status" aria-live="polite">
        {store.notices.map((notice) => (
          <div key={notice.id} class={`notice ${notice.level}`}>
            <span>{notice.text}</span>
            <button type="button" aria-label="dismiss" onClick={() => store.dismiss(notice.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
      <Dialogs store={store} />
    </div>
  );
}

function describe(hello: NonNullable<Store["hello"]>): string {
  switch (hello.mode) {
    case "agent":
      return `agent: ${hello.agent?.join(" ")}`;
    case "url":
      return `remote agent: ${hello.url}`;
    case "tap":
      return `tap: ${hello.agent?.join(" ")}`;
    case "cassette":
      return `cassette: ${hello.cassette?.name}${hello.agent ? ` · agent: ${hello.agent.join(" ")}` : ""}`;
    default:
      return "no agent";
  }
}
