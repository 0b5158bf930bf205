import type { ReactNode } from "react";
import { ConsoleShell } from "@/components/console/shell";
import { getConsole } from "@/lib/console/context";

/** The signed-in console: every page in the console's frame (components/console/shell.tsx). */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  return <ConsoleShell ctx={await getConsole()}>{children}</ConsoleShell>;
}
