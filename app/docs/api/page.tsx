import type { Metadata } from "next";
import { JsonBlock } from "@/components/json-block";
import { apiReference } from "@/lib/meta/reference";

export const metadata: Metadata = { title: "API reference — svc" };

const methodColor: Record<string, string> = {
  GET: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100",
  POST: "bg-blue-100 text-blue-900 dark:bg-blue-900 dark:text-blue-100",
  PATCH: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
  PUT: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
  DELETE: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100",
};

/** Human-readable rendering of the generated OpenAPI document. */
export default function ApiReferencePage() {
  const { info, groups } = apiReference();
  return (
    <main className="mx-auto max-w-5xl px-6 py-12">
      <h1 className="text-3xl font-semibold tracking-tight">{info.title}</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
        Version {info.version} · <a href="/v1/openapi.json" className="underline">openapi.json</a>
      </p>
      <p className="mt-4 max-w-3xl text-zinc-700 dark:text-zinc-300">{info.description}</p>
      <nav aria-label="Operations" className="mt-8">
        <ul className="grid gap-1 sm:grid-cols-2">
          {groups.flatMap((g) =>
            g.operations.map((op) => (
              <li key={op.id}>
                <a className="text-sm underline" href={`#${op.id}`}>
                  {op.method} {op.path}
                </a>
              </li>
            )),
          )}
        </ul>
      </nav>
      {groups.map((group) => (
        <section key={group.tag} className="mt-12" aria-labelledby={`tag-${group.tag}`}>
          <h2 id={`tag-${group.tag}`} className="border-b border-zinc-200 pb-2 text-2xl font-semibold dark:border-zinc-800">
            {group.tag}
          </h2>
          {group.operations.map((op) => (
            <article key={op.id} id={op.id} className="mt-8">
              <h3 className="flex flex-wrap items-center gap-2 text-lg font-medium">
                <span className={`rounded px-2 py-0.5 font-mono text-xs ${methodColor[op.method] ?? ""}`}>{op.method}</span>
                <code className="font-mono">{op.path}</code>
                <span className="text-zinc-600 dark:text-zinc-400">— {op.summary}</span>
              </h3>
              <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
                Scope: <code>{op.scope}</code> · Status: <code>{op.status}</code>
              </p>
              {op.description ? <p className="mt-2 text-zinc-700 dark:text-zinc-300">{op.description}</p> : null}
              {op.parameters.length > 0 ? (
                <table className="mt-3 w-full text-left text-sm">
                  <caption className="sr-only">Parameters of {op.id}</caption>
                  <thead>
                    <tr className="text-zinc-600 dark:text-zinc-400">
                      <th className="py-1 pr-4 font-normal">Parameter</th>
                      <th className="py-1 pr-4 font-normal">In</th>
                      <th className="py-1 font-normal">Schema</th>
                    </tr>
                  </thead>
                  <tbody>
                    {op.parameters.map((p) => (
                      <tr key={`${p.in}-${p.name}`} className="border-t border-zinc-100 dark:border-zinc-900">
                        <td className="py-1 pr-4 font-mono">
                          {p.name}
                          {p.required ? " *" : ""}
                        </td>
                        <td className="py-1 pr-4">{p.in}</td>
                        <td className="py-1 font-mono text-xs">{JSON.stringify(p.schema)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ) : null}
              {op.requestBody ? (
                <details className="mt-3">
                  <summary className="cursor-pointer text-sm font-medium">Request body</summary>
                  <JsonBlock value={op.requestBody} />
                </details>
              ) : null}
              <details className="mt-3">
                <summary className="cursor-pointer text-sm font-medium">Responses ({op.responses.join(", ")})</summary>
                <JsonBlock value={op.successSchema} />
              </details>
            </article>
          ))}
        </section>
      ))}
    </main>
  );
}
