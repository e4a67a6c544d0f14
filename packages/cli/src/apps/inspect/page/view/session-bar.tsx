/**
 * A session's controls above its conversation: mode, config options (models among them), usage, and the session
 * actions the agent advertises (list, load, resume, fork), for the lane the page drives.
 */
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import type { SessionView } from "../model/fold.js";
import type { Actions } from "./actions.js";

export function SessionBar({
  view,
  actions,
  driven,
}: {
  view: SessionView;
  actions: Actions | undefined;
  driven: boolean;
}): JSX.Element {
  const { transcript } = view;
  const modes = transcript.state.modes;
  const options = transcript.configOptions ?? [];
  const usage = transcript.usage;
  return (
    <div class="session-bar" role="toolbar" aria-label="session settings">
      <span class="session-id" title={view.sessionId}>
        {transcript.info.title ? <strong>{transcript.info.title}</strong> : null} <code>{view.sessionId}</code>
        <span class="muted"> ({view.origin})</span>
      </span>
      {modes && modes.availableModes.length > 0 ? (
        <label>
          Mode{" "}
          <select
            aria-label="Mode"
            disabled={!driven}
            value={transcript.currentModeId}
            onChange={(e) => actions?.setMode(view.sessionId, (e.currentTarget as HTMLSelectElement).value)}
          >
            {modes.availableModes.map((mode) => (
              <option key={mode.id} value={mode.id}>
                {mode.name}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {options.map((option) =>
        option.type === "boolean" ? (
          <label key={option.id} class="check">
            <input
              type="checkbox"
              disabled={!driven}
              checked={option.currentValue as boolean}
              onChange={(e) =>
                actions?.setConfig(view.sessionId, option.id, (e.currentTarget as HTMLInputElement).checked)
              }
            />{" "}
            {option.name}
          </label>
        ) : (
          <label key={option.id}>
            {option.name}{" "}
            <select
              aria-label={option.name}
              disabled={!driven}
              value={String(option.currentValue)}
              onChange={(e) =>
                actions?.setConfig(view.sessionId, option.id, (e.currentTarget as HTMLSelectElement).value)
              }
            >
              {flatOptions(option.options).map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.name}
                </option>
              ))}
            </select>
          </label>
        ),
      )}
      {usage ? (
        <span class="usage" title="context window used">
          {usage.used.toLocaleString("en")} / {usage.size.toLocaleString("en")} tokens
          {usage.cost ? ` · ${usage.cost.amount} ${usage.cost.currency}` : ""}
        </span>
      ) : null}
    </div>
  );
}

function flatOptions(options: unknown): Array<{ value: string; name: string }> {
  const out: Array<{ value: string; name: string }> = [];
  for (const item of (options as Array<Record<string, unknown>>) ?? []) {
    if (Array.isArray(item.options)) out.push(...flatOptions(item.options));
    else out.push({ value: String(item.value), name: String(item.name ?? item.value) });
  }
  return out;
}

/** Lists the agent's sessions and offers load, resume and fork where the agent advertises them. */
export function SessionList({ actions }: { actions: Actions }): JSX.Element {
  const [sessions, setSessions] = useState<any[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const caps = actions.capabilities();
  const refresh = () =>
    actions.listSessions().then(
      (list) => {
        setSessions(list);
        setError(undefined);
      },
      (e: Error) => setError(e.message),
    );
  return (
    <section class="session-list" aria-label="the agent's sessions">
      <button type="button" onClick={refresh} disabled={!caps.list}>
        List sessions
      </button>
      {!caps.list ? <span class="muted"> (the agent does not advertise session/list)</span> : null}
      {error ? <p class="error">{error}</p> : null}
      {sessions ? (
        sessions.length === 0 ? (
          <p class="muted">No sessions.</p>
        ) : (
          <ul>
            {sessions.map((session) => (
              <li key={session.sessionId}>
                <code>{session.sessionId}</code> {session.title ? <span>{session.title}</span> : null}{" "}
                {caps.load ? (
                  <button type="button" onClick={() => actions.loadSession(session.sessionId, session.cwd)}>
                    Load
                  </button>
                ) : null}
                {caps.resume ? (
                  <button type="button" onClick={() => actions.resumeSession(session.sessionId, session.cwd)}>
                    Resume
                  </button>
                ) : null}
                {caps.fork ? (
                  <button type="button" onClick={() => actions.forkSession(session.sessionId, session.cwd)}>
                    Fork
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        )
      ) : null}
    </section>
  );
}
