"use client";

import { createContext, type ReactNode } from "react";

/** The organization the current console page was rendered for (null outside the console). */
export const OrgContext = createContext<string | null>(null);

export function OrgProvider({ orgId, children }: { orgId: string; children: ReactNode }) {
  return <OrgContext value={orgId}>{children}</OrgContext>;
}
