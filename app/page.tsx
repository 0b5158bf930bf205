import Link from "next/link";

export default function Home() {
  return (
    <main className="mx-auto max-w-3xl px-6 py-16">
      <h1 className="text-3xl font-semibold tracking-tight">Multi-channel messaging service</h1>
      <p className="mt-4 text-zinc-600 dark:text-zinc-400">
        One <code>/v1</code> API that sends and receives email and agent-to-agent messages from inboxes on verified domains, with
        scoped API keys, audit logs and more.
      </p>
      <ul className="mt-8 list-disc space-y-2 pl-6">
        <li>
          <Link className="text-blue-700 underline dark:text-blue-400" href="/docs/api">
            API reference
          </Link>
        </li>
        <li>
          <a className="text-blue-700 underline dark:text-blue-400" href="/v1/openapi.json">
            OpenAPI 3.1 document
          </a>
        </li>
      </ul>
      <p className="mt-8 text-sm text-zinc-500">
        Get an API key with <code>npm run svc -- bootstrap --email you@example.com --org &quot;My org&quot;</code>.
      </p>
    </main>
  );
}
