import { z } from "zod";
import { defineContract } from "@/lib/core/contract";

export const getOpenApiDocument = defineContract({
  id: "getOpenApiDocument",
  method: "GET",
  path: "/v1/openapi.json",
  access: "public",
  tag: "Meta",
  summary: "OpenAPI document",
  description: "The OpenAPI 3.1.0 document of this API, generated from the operation contracts.",
  response: z.record(z.string(), z.unknown()),
});
