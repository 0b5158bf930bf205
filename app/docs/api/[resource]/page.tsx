import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ApiReferenceGroup } from "@/components/docs/api-reference";
import { pageBaseUrl } from "@/lib/console/base-url";
import { apiReference, withBaseUrl } from "@/lib/meta/reference";
import { DocsFrame } from "../frame";

type Params = Promise<{ resource: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { resource } = await params;
  const group = apiReference().groups.find((g) => g.slug === resource);
  return { title: `${group?.tag ?? "API reference"} — svc API reference` };
}

/** One resource of the API reference: its operations in full (fields, examples, errors). */
export default async function ApiResourcePage({ params }: { params: Params }) {
  const { resource } = await params;
  const reference = withBaseUrl(apiReference(), await pageBaseUrl());
  if (!reference.groups.some((g) => g.slug === resource)) notFound();
  return (
    <DocsFrame>
      <ApiReferenceGroup reference={reference} slug={resource} />
    </DocsFrame>
  );
}
