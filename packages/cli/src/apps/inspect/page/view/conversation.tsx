/**
 * The conversation pane of the selected lane: its sessions as tabs, the selected session's settings, transcript
 * and (for a lane the page drives) the prompt box: text, file attachments, the agent's slash commands offered as
 * you type `/`, Send (Enter; Shift+Enter for a new line) and Cancel while a turn runs. Lanes the page only watches
 * (an editor through the tap, a cassette, an observed session) show the same conversation read-only, with the
 * agent's requests that wait for the other client's answer.
 */
import type { JSX } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { AgentRequest } from "../model/fold.js";
import type { LaneModel } from "../model/lane.js";
import type { Store } from "../model/store.js";
import type { Actions, Attachment } from "./actions.js";
import { Entries } from "./entries.js";
import { SessionBar, SessionList } from "./session-bar.js";
import { short } from "./timeline.js";

export function Conversation({
  store,
  lane,
  actions,
}: {
  store: Store;
  lane: LaneModel;
  actions: Actions | undefined;
}): JSX.Element {
  const fold = lane.fold;
  const sessionId =
    store.selectedSession !== undefined && fold.sessions.has(store.selectedSession)
      ? store.selectedSession
      : fold.order[fold.order.length - 1];
  const view = sessionId === undefined ? undefined : fold.sessions.get(sessionId);
  const driven = actions !== undefined && !lane.closed;
  // Follow the end of the conversation while the person has not scrolled up.
  const scroller = useRef<HTMLDivElement>(null);
  const atEnd = useRef(true);
  const shown = useRef(-1);
  const version = fold.version;
  useLayoutEffect(() => {
    const element = scroller.current;
    if (shown.current === version) return;
    shown.current = version;
    if (element && atEnd.current) element.scrollTop = element.scrollHeight;
  });
  const waiting = [...fold.requests.values()].filter(
    (request) =>
      !request.answered && (request.method === "session/request_permission" || request.method === "elicitation/create"),
  );
  return (
    <section class="conversation" aria-label="conversation">
      <div class="tabs">
        <div role="tablist" aria-label="sessions">
          {fold.order.map((id) => (
            <button
              key={id}
              type="button"
              role="tab"
              aria-selected={id === sessionId}
              onClick={() => store.select(lane.info.id, id)}
              title={id}
            >
              {fold.sessions.get(id)!.transcript.info.title ?? short(id)}
            </button>
          ))}
        </div>
        {driven ? (
          <button type="button" class="new-session" onClick={() => void actions!.newSession().catch(() => {})}>
            + New session
          </button>
        ) : null}
      </div>
      {driven ? <SessionList actions={actions!} /> : null}
      {view ? <SessionBar view={view} actions={actions} driven={driven} /> : null}
      <div
        class="transcript"
        ref={scroller}
        tabIndex={0}
        aria-label="transcript"
        aria-busy={view?.transcript.currentTurn !== undefined}
        onScroll={(event) => {
          const element = event.currentTarget as HTMLDivElement;
          atEnd.current = element.scrollTop + element.clientHeight >= element.scrollHeight - 40;
        }}
      >
        {view ? (
          <Entries transcript={view.transcript} fold={fold} />
        ) : (
          <p class="hint">
            {driven
              ? "Start a session with “+ New session”, or list the agent's sessions to load one."
              : "No session yet: the conversation appears here as it happens."}
          </p>
        )}
        {!driven && waiting.length > 0 ? (
          <ul class="waiting" aria-label="requests waiting for the client">
            {waiting.map((request) => (
              <li key={request.id}>
                <WaitingRequest request={request} />
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      {driven && view ? <Composer store={store} lane={lane} actions={actions!} sessionId={view.sessionId} /> : null}
      {lane.closed ? <p class="lane-closed">Lane closed{lane.closedReason ? `: ${lane.closedReason}` : ""}.</p> : null}
    </section>
  );
}

/** One request of the agent waiting for another client: what it asks and, for a permission, its options. */
function WaitingRequest({ request }: { request: AgentRequest }): JSX.Element {
  const title: unknown = request.params?.toolCall?.title;
  const options: unknown[] = Array.isArray(request.params?.options) ? request.params.options : [];
  const names = options
    .map(
      (option) =>
        (option as { name?: unknown; optionId?: unknown })?.name ?? (option as { optionId?: unknown }).optionId,
    )
    .filter((name): name is string => typeof name === "string");
  const what =
    typeof title === "string" ? (
      <>
        : <strong>{title}</strong>
        {names.length > 0 ? ` (${names.join(" / ")})` : ""}
      </>
    ) : null;
  if (request.observed)
    return (
      <span data-testid="observed-permission">
        The agent asks the session's controllers for permission{what}; waiting for a controller's answer (observers are
        not asked).
      </span>
    );
  return (
    <span>
      The agent asks <code>{request.method}</code> (#{request.id}){what}; waiting for the other client's answer.
    </span>
  );
}

function Composer({
  lane,
  actions,
  sessionId,
}: {
  store: Store;
  lane: LaneModel;
  actions: Actions;
  sessionId: string;
}): JSX.Element {
  const [text, setText] = useState("");
  const [files, setFiles] = useState<Attachment[]>([]);
  const fileInput = useRef<HTMLInputElement>(null);
  const transcript = lane.fold.sessions.get(sessionId)!.transcript;
  const running = transcript.currentTurn !== undefined;
  const commands = transcript.availableCommands ?? [];
  const typed = /^\/(\S*)$/.exec(text)?.[1];
  const suggestions =
    typed === undefined ? [] : commands.filter((command) => command.name.startsWith(typed)).slice(0, 8);
  const send = () => {
    if (running || (text.trim() === "" && files.length === 0)) return;
    const prompt = text;
    const attached = files;
    setText("");
    setFiles([]);
    void actions.prompt(sessionId, prompt, attached).catch(() => {});
  };
  const attach = async (list: FileList | null) => {
    const added: Attachment[] = [];
    for (const file of list ? [...list] : []) {
      if (file.type.startsWith("image/")) {
        const bytes = new Uint8Array(await file.arrayBuffer());
        let binary = "";
        for (const byte of bytes) binary += String.fromCharCode(byte);
        added.push({ name: file.name, mimeType: file.type, data: btoa(binary) });
      } else added.push({ name: file.name, mimeType: file.type || "text/plain", text: await file.text() });
    }
    setFiles([...files, ...added]);
  };
  return (
    <form
      class="composer"
      aria-label="prompt"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      {suggestions.length > 0 ? (
        <ul class="suggestions" aria-label="slash commands">
          {suggestions.map((command) => (
            <li key={command.name}>
              <button type="button" onClick={() => setText(`/${command.name} `)}>
                <code>/{command.name}</code>{" "}
                {command.input?.hint ? <code class="muted">{command.input.hint}</code> : null}{" "}
                <span class="muted">{command.description}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {files.length > 0 ? (
        <ul class="attachments" aria-label="attachments">
          {files.map((file, i) => (
            <li key={i}>
              {file.name}{" "}
              <button
                type="button"
                aria-label={`remove ${file.name}`}
                onClick={() => setFiles(files.filter((_, k) => k !== i))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div class="composer-row">
        <textarea
          aria-label="prompt text"
          placeholder={commands.length > 0 ? "Ask the agent, or type / for its commands" : "Ask the agent"}
          rows={2}
          value={text}
          onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && !event.shiftKey) {
              event.preventDefault();
              send();
            }
          }}
        />
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          onChange={(e) => void attach((e.currentTarget as HTMLInputElement).files)}
        />
        <button type="button" onClick={() => fileInput.current?.click()} title="attach files">
          Attach…
        </button>
        {running ? (
          <button type="button" class="danger" onClick={() => void actions.cancel(sessionId)}>
            Cancel
          </button>
        ) : (
          <button type="submit" class="primary">
            Send
          </button>
        )}
      </div>
    </form>
  );
}
