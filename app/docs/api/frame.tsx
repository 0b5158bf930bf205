import Link from "next/link";
import type { ReactNode } from "react";
import { ConsoleShell } from "@/components/console/shell";
import { consoleIfSignedIn } from "@/lib/console/context";

/** The API reference's frame: the console's, with its sidebar, for a signed-in user; a plain header otherwise (the reference is public). */
export async function DocsFrame({ children }: { children: ReactNode }) {
  const ctx = await consoleIfSignedIn();
  if (ctx) return <ConsoleShell ctx={ctx}>{children}</ConsoleShell>;
  return (
    <>
      <header className="flex items-center justify-between gap-4 border-b border-zinc-200 px-4 py-3 sm:px-6 dark:border-zinc-800">
        <p className="text-lg font-semibold tracking-tight">svc</p>
        <Link className="link text-sm" href="/sign-in">
          Sign in to the console
        </Link>
      </header>
      <main id="main" className="min-w-0 p-4 sm:p-6 md:p-8">
        {children}
      </main>
    </>
  );
}
