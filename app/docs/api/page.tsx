import type { Metadata } from "next";
import { ApiReferenceIndex } from "@/components/docs/api-reference";
import { apiReference } from "@/lib/meta/reference";
import { DocsFrame } from "./frame";

export const metadata: Metadata = { title: "API reference — svc" };

/** The API reference (public), rendered from the generated OpenAPI document: the introduction and every operation by resource. */
export default function ApiReferencePage() {
  return (
    <DocsFrame>
      <ApiReferenceIndex reference={apiReference()} />
    </DocsFrame>
  );
}
