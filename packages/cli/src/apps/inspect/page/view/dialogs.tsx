/**
 * What the agent asks the person, as modal dialogs: a permission request with the agent's own options (and the
 * tool call it is about), and an elicitation form built from the requested schema (strings, numbers, booleans,
 * enums; required fields). Escape cancels (a permission request is answered `cancelled`, a form `cancel`); focus
 * goes to the first choice and stays in the dialog.
 */
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Question, Store } from "../model/store.js";

export function Dialogs({ store }: { store: Store }): JSX.Element | null {
  const question = store.questions[0];
  if (!question) return null;
  return question.kind === "permission" ? (
    <PermissionDialog key={question.id} question={question} store={store} />
  ) : (
    <ElicitationDialog key={question.id} question={question} />
  );
}

function useDialog(onEscape: () => void) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = ref.current!;
    const first = element.querySelector<HTMLElement>("button, input, select, textarea");
    first?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        event.preventDefault();
        onEscape();
      } else if (event.key === "Tab") {
        const focusable = [...element.querySelectorAll<HTMLElement>("button, input, select, textarea, a[href]")];
        if (focusable.length === 0) return;
        const index = focusable.indexOf(document.activeElement as HTMLElement);
        if (event.shiftKey && index <= 0) {
          event.preventDefault();
          focusable[focusable.length - 1]!.focus();
        } else if (!event.shiftKey && index === focusable.length - 1) {
          event.preventDefault();
          focusable[0]!.focus();
        }
      }
    };
    element.addEventListener("keydown", onKey);
    return () => element.removeEventListener("keydown", onKey);
  }, []);
  return ref;
}

function PermissionDialog({ question, store }: { question: Question; store: Store }): JSX.Element {
  const params = question.params as {
    sessionId: string;
    toolCall: { toolCallId: string; title?: string; kind?: string; rawInput?: unknown };
    options: Array<{ optionId: string; name: string; kind: string }>;
  };
  const ref = useDialog(() => question.resolve({ outcome: { outcome: "cancelled" } }));
  const known = store.lanes
    .get(question.lane)
    ?.fold.sessions.get(params.sessionId)
    ?.transcript.toolCall(params.toolCall.toolCallId);
  const title = params.toolCall.title ?? known?.title ?? params.toolCall.toolCallId;
  return (
    <div class="backdrop">
      <div
        ref={ref}
        class="dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="perm-title"
        aria-describedby="perm-desc"
        data-testid="permission-dialog"
      >
        <h2 id="perm-title">The agent asks for permission</h2>
        <p id="perm-desc">
          <strong>{title}</strong>
          {(params.toolCall.kind ?? known?.kind) ? (
            <span class="muted"> ({params.toolCall.kind ?? known?.kind})</span>
          ) : null}
        </p>
        {params.toolCall.rawInput !== undefined ? (
          <pre class="raw small">{JSON.stringify(params.toolCall.rawInput, null, 2)}</pre>
        ) : null}
        <div class="choices">
          {params.options.map((option) => (
            <button
              key={option.optionId}
              type="button"
              class={`choice ${option.kind}`}
              onClick={() => question.resolve({ outcome: { outcome: "selected", optionId: option.optionId } })}
            >
              {option.name}
              <span class="muted"> ({option.kind.replace("_", " ")})</span>
            </button>
          ))}
          <button type="button" class="choice" onClick={() => question.resolve({ outcome: { outcome: "cancelled" } })}>
            Dismiss (cancelled)
          </button>
        </div>
      </div>
    </div>
  );
}

interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  enum?: string[];
  oneOf?: Array<{ const: string; title?: string }>;
  default?: unknown;
}

function ElicitationDialog({ question }: { question: Question }): JSX.Element {
  const params = question.params as {
    message: string;
    requestedSchema?: { properties?: Record<string, FieldSchema>; required?: string[] };
  };
  const properties = params.requestedSchema?.properties ?? {};
  const required = new Set(params.requestedSchema?.required ?? []);
  const [values, setValues] = useState<Record<string, unknown>>(() =>
    Object.fromEntries(
      Object.entries(properties)
        .filter(([, field]) => field.default !== undefined)
        .map(([name, field]) => [name, field.default]),
    ),
  );
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const ref = useDialog(() => question.resolve({ action: "cancel" }));
  const submit = (event: Event) => {
    event.preventDefault();
    const missing = [...required].filter((name) => values[name] === undefined || values[name] === "");
    if (missing.length > 0) {
      setProblem(`Required: ${missing.map((name) => properties[name]?.title ?? name).join(", ")}`);
      return;
    }
    question.resolve({ action: "accept", content: values });
  };
  return (
    <div class="backdrop">
      <div
        ref={ref}
        class="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="form-title"
        data-testid="elicitation-dialog"
      >
        <h2 id="form-title">The agent asks</h2>
        <p>{params.message}</p>
        <form onSubmit={submit}>
          {Object.entries(properties).map(([name, field]) => {
            const id = `field-${name}`;
            const label = `${field.title ?? name}${required.has(name) ? " (required)" : ""}`;
            const choices = field.enum ?? field.oneOf?.map((item) => item.const);
            const set = (value: unknown) => setValues({ ...values, [name]: value });
            return (
              <div class="field" key={name}>
                <label for={id}>{label}</label>
                {choices ? (
                  <select
                    id={id}
                    value={String(values[name] ?? "")}
                    onChange={(e) => set((e.currentTarget as HTMLSelectElement).value)}
                  >
                    <option value="">—</option>
                    {choices.map((choice) => (
                      <option key={choice} value={choice}>
                        {choice}
                      </option>
                    ))}
                  </select>
                ) : field.type === "boolean" ? (
                  <input
                    id={id}
                    type="checkbox"
                    checked={values[name] === true}
                    onChange={(e) => set((e.currentTarget as HTMLInputElement).checked)}
                  />
                ) : field.type === "number" || field.type === "integer" ? (
                  <input
                    id={id}
                    type="number"
                    value={String(values[name] ?? "")}
                    onInput={(e) => {
                      const raw = (e.currentTarget as HTMLInputElement).value;
                      set(raw === "" ? undefined : Number(raw));
                    }}
                  />
                ) : (
                  <input
                    id={id}
                    type="text"
                    value={String(values[name] ?? "")}
                    onInput={(e) => set((e.currentTarget as HTMLInputElement).value)}
                  />
                )}
                {field.description ? <small>{field.description}</small> : null}
              </div>
            );
          })}
          {problem ? (
            <p class="error" role="alert">
              {problem}
            </p>
          ) : null}
          <div class="choices">
            <button type="submit" class="primary">
              Send
            </button>
            <button type="button" onClick={() => question.resolve({ action: "decline" })}>
              Decline
            </button>
            <button type="button" onClick={() => question.resolve({ action: "cancel" })}>
              Cancel
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}
