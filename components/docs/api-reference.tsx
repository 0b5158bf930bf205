import type { FieldRow } from "@/lib/meta/schema-view";
import type { apiReference, OperationView } from "@/lib/meta/reference";
import { Markdown } from "./markdown";

type Reference = ReturnType<typeof apiReference>;

const METHOD_TONES: Record<string, string> = {
  GET: "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200",
  POST: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
  PATCH: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  PUT: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  DELETE: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
};

const MUTED = "text-zinc-600 dark:text-zinc-400";
const CODE =
  "max-w-full overflow-x-auto rounded-md bg-zinc-100 p-3 font-mono text-xs leading-relaxed text-zinc-900 dark:bg-zinc-900 dark:text-zinc-100";

function Method({ method }: { method: string }) {
  return (
    <span
      className={`inline-block w-16 shrink-0 rounded px-1.5 py-0.5 text-center font-mono text-xs font-semibold ${METHOD_TONES[method] ?? ""}`}
    >
      {method}
    </span>
  );
}

/** The header every reference page shares: title, version, the document, base URL, authentication, errors. */
function Intro({ reference, count }: { reference: Reference; count: number }) {
  const { info, server, auth } = reference;
  return (
    <header className="space-y-3">
      <h1 className="text-2xl font-semibold tracking-tight">{info.title}</h1>
      <p className={`text-sm ${MUTED}`}>
        Version {info.version} · {count} operations ·{" "}
        <a className="link" href="/v1/openapi.json">
          OpenAPI document (JSON)
        </a>
      </p>
      <Markdown text={info.description} className="max-w-3xl text-zinc-800 dark:text-zinc-200" />
      <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="font-medium">Base URL</dt>
        <dd className="min-w-0 font-mono break-all">{server}</dd>
        <dt className="font-medium">Authentication</dt>
        <dd className="min-w-0">
          <code className="font-mono">Authorization: Bearer &lt;API key&gt;</code>
          {auth ? <Markdown text={auth} className={MUTED} /> : null}
        </dd>
        <dt className="font-medium">Errors</dt>
        <dd className="min-w-0">
          <code className="font-mono break-words">{'{"error": {"type", "code", "message", "param"}}'}</code> with the
          HTTP status; each operation lists its codes.
        </dd>
      </dl>
    </header>
  );
}

/** The resources as a navigation list (the current one marked). */
function Resources({ reference, current }: { reference: Reference; current?: string }) {
  return (
    <nav aria-label="API resources" className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <h2 className="text-sm font-semibold">Resources</h2>
      <ul className="mt-2 grid grid-cols-2 gap-x-4 gap-y-1 text-sm sm:grid-cols-3">
        {reference.groups.map((g) => (
          <li key={g.tag}>
            <a
              className={g.slug === current ? "font-semibold" : "link"}
              href={`/docs/api/${g.slug}`}
              aria-current={g.slug === current ? "page" : undefined}
            >
              {g.tag}
            </a>{" "}
            <span className={MUTED}>({g.operations.length})</span>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * The API reference's first page, rendered from the OpenAPI document the app generates
 * (`lib/meta/reference.ts`): the introduction and every operation by resource (method, path,
 * summary), each linking to its resource's page.
 */
export function ApiReferenceIndex({ reference }: { reference: Reference }) {
  const count = reference.groups.reduce((n, g) => n + g.operations.length, 0);
  return (
    <div className="mx-auto max-w-4xl min-w-0 space-y-10">
      <Intro reference={reference} count={count} />
      <Resources reference={reference} />
      {reference.groups.map((g) => (
        <section key={g.tag} aria-labelledby={`${g.slug}-heading`} className="space-y-3">
          <h2
            id={`${g.slug}-heading`}
            className="border-b border-zinc-200 pb-2 text-xl font-semibold dark:border-zinc-800"
          >
            <a className="hover:underline" href={`/docs/api/${g.slug}`}>
              {g.tag}
            </a>
          </h2>
          <ul className="space-y-1">
            {g.operations.map((op) => (
              <li key={op.id} className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1">
                <Method method={op.method} />
                <a className="link min-w-0 font-mono text-sm break-all" href={`/docs/api/${g.slug}#${op.id}`}>
                  {op.path}
                </a>
                <span className={`text-sm ${MUTED}`}>{op.summary}</span>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

/**
 * One resource's page: every operation in full — description, parameters and body fields as
 * readable types, a request example (the contract's, else built from the schema) with curl, the
 * success response's fields and example, and its error codes.
 */
export function ApiReferenceGroup({ reference, slug }: { reference: Reference; slug: string }) {
  const group = reference.groups.find((g) => g.slug === slug);
  if (!group) return null;
  return (
    <div className="mx-auto max-w-4xl min-w-0 space-y-8">
      <p className="text-sm">
        <a className="link" href="/docs/api">
          ← API reference
        </a>
      </p>
      <header className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight">{group.tag}</h1>
        {group.description ? <Markdown text={group.description} className="text-zinc-800 dark:text-zinc-200" /> : null}
        <ul className="space-y-1 pt-2">
          {group.operations.map((op) => (
            <li key={op.id} className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1">
              <Method method={op.method} />
              <a className="link min-w-0 font-mono text-sm break-all" href={`#${op.id}`}>
                {op.path}
              </a>
              <span className={`text-sm ${MUTED}`}>{op.summary}</span>
            </li>
          ))}
        </ul>
      </header>
      {group.operations.map((op) => (
        <Operation key={op.id} op={op} />
      ))}
      <Resources reference={reference} current={slug} />
    </div>
  );
}

function Operation({ op }: { op: OperationView }) {
  return (
    <article
      id={op.id}
      aria-labelledby={`${op.id}-heading`}
      className="scroll-mt-4 rounded-lg border border-zinc-200 dark:border-zinc-800"
    >
      <h2
        id={`${op.id}-heading`}
        className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-zinc-200 px-3 py-2.5 dark:border-zinc-800"
      >
        <Method method={op.method} />
        <code className="min-w-0 font-mono text-sm font-normal break-all">{op.path}</code>
        <span className="text-sm font-semibold">{op.summary}</span>
        {op.status !== "live" ? (
          <span className="rounded bg-zinc-100 px-1.5 text-xs font-normal text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300">
            {op.status.replace(/_/g, " ")}
          </span>
        ) : null}
      </h2>
      <div className="min-w-0 space-y-5 px-3 py-4 text-sm">
        {op.description ? <Markdown text={op.description} className="text-zinc-800 dark:text-zinc-200" /> : null}
        <p className={MUTED}>
          {op.scope === "public" ? (
            "No API key needed."
          ) : (
            <>
              Needs the scope <code className="font-mono text-zinc-900 dark:text-zinc-100">{op.scope}</code>.
            </>
          )}{" "}
          Operation id <code className="font-mono">{op.id}</code>.
        </p>

        {op.parameters.length > 0 ? (
          <Block title="Parameters">
            <ul className="divide-y divide-zinc-100 dark:divide-zinc-800">
              {op.parameters.map((p) => (
                <li key={`${p.in}-${p.name}`} className="py-2">
                  <FieldHead name={p.name} type={p.type} required={p.required} where={p.in} />
                  {p.description ? (
                    <Markdown text={p.description} className="mt-1 text-zinc-800 dark:text-zinc-200" />
                  ) : null}
                  <Constraints items={p.constraints} />
                </li>
              ))}
            </ul>
          </Block>
        ) : null}

        {op.request ? (
          <Block title="Request body (JSON)">
            <Fields rows={op.request.fields} />
            <h4 className="mt-3 text-xs font-semibold tracking-wide text-zinc-700 uppercase dark:text-zinc-300">
              Example request{op.request.exampleFromContract ? "" : " (required fields)"}
            </h4>
            <pre tabIndex={0} className={CODE}>
              {JSON.stringify(op.request.example, null, 2)}
            </pre>
          </Block>
        ) : null}

        <Block title="curl">
          <pre tabIndex={0} className={CODE}>
            {op.curl}
          </pre>
        </Block>

        {op.success ? (
          <Block title={`Response ${op.success.status}`}>
            {op.success.fields.length > 0 ? (
              <Fields rows={op.success.fields} />
            ) : (
              <p className={MUTED}>No JSON body.</p>
            )}
            {op.success.example !== undefined ? (
              <details className="mt-3">
                <summary className="cursor-pointer text-xs font-semibold tracking-wide text-zinc-700 uppercase dark:text-zinc-300">
                  Example response
                </summary>
                <pre tabIndex={0} className={`mt-2 max-h-96 ${CODE}`}>
                  {JSON.stringify(op.success.example, null, 2)}
                </pre>
              </details>
            ) : null}
          </Block>
        ) : null}

        {op.errors.length > 0 ? (
          <Block title="Errors">
            <ul className="space-y-1">
              {op.errors.map((e) => (
                <li key={e.status} className="flex gap-3">
                  <span className="w-10 shrink-0 font-mono font-semibold tabular-nums">{e.status}</span>
                  <Markdown text={e.description} className="min-w-0 text-zinc-800 dark:text-zinc-200" />
                </li>
              ))}
            </ul>
          </Block>
        ) : null}
      </div>
    </article>
  );
}

function Block({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="min-w-0 space-y-2">
      <h3 className="text-sm font-semibold">{title}</h3>
      {children}
    </section>
  );
}

function FieldHead({ name, type, required, where }: { name: string; type: string; required: boolean; where?: string }) {
  return (
    <p className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5">
      <code className="font-mono font-semibold break-all text-zinc-900 dark:text-zinc-100">{name}</code>
      <span className="font-mono text-xs break-words text-zinc-700 dark:text-zinc-300">{type}</span>
      {where ? <span className={`text-xs ${MUTED}`}>in {where}</span> : null}
      {required ? (
        <span className="text-xs font-medium text-red-800 dark:text-red-300">required</span>
      ) : (
        <span className={`text-xs ${MUTED}`}>optional</span>
      )}
    </p>
  );
}

function Constraints({ items }: { items: string[] }) {
  if (items.length === 0) return null;
  return <p className={`mt-0.5 text-xs break-words ${MUTED}`}>{items.join(" · ")}</p>;
}

/** An object's fields; nested objects' fields open below their field. */
function Fields({ rows }: { rows: FieldRow[] }) {
  if (rows.length === 0) return <p className={MUTED}>No fields.</p>;
  return (
    <ul className="divide-y divide-zinc-100 dark:divide-zinc-800">
      {rows.map((r) => (
        <li key={r.name} className="min-w-0 py-2">
          <FieldHead name={r.name} type={r.type} required={r.required} />
          {r.description ? <Markdown text={r.description} className="mt-1 text-zinc-800 dark:text-zinc-200" /> : null}
          <Constraints items={r.constraints} />
          {r.children.length > 0 ? (
            <details className="mt-1">
              <summary className="link cursor-pointer text-xs">
                Fields of <span className="font-mono">{r.name}</span> ({r.children.length})
              </summary>
              <div className="mt-1 border-l-2 border-zinc-200 pl-3 dark:border-zinc-700">
                <Fields rows={r.children} />
              </div>
            </details>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
