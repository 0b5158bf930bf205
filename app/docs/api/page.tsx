import type { Metadata } from "next";
import { ApiReferenceIndex } from "@/components/docs/api-reference";
import { pageBaseUrl } from "@/lib/console/base-url";
import { apiReference, withBaseUrl } from "@/lib/meta/reference";
import { DocsFrame } from "./frame";

export const metadata: Metadata = { title: "API reference — svc" };

/** The API reference (public), rendered from the generated OpenAPI document: the introduction and every operation by resource. */
export default async function ApiReferencePage() {
  return (
    <DocsFrame>
      <ApiReferenceIndex reference={withBaseUrl(apiReference(), await pageBaseUrl())} />
    </DocsFrame>
  );
}
