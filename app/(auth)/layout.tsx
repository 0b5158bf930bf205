import type { ReactNode } from "react";
import { Providers } from "@/components/console/providers";

/** Signed-out pages: one centred card. */
export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <Providers>
      <main className="flex min-h-screen items-center justify-center bg-zinc-50 px-4 py-12 dark:bg-zinc-950">
        <div className="w-full max-w-sm space-y-6 rounded-xl border border-zinc-200 bg-white p-8 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
          {children}
        </div>
      </main>
    </Providers>
  );
}
