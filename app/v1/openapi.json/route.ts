import { handle, route } from "@/lib/api/kernel";
import { openApiDocument } from "@/lib/api/openapi-document";
import { getOpenApi } from "@/lib/contracts/meta";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(getOpenApi, () => Promise.resolve(openApiDocument())));
