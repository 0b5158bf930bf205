import { notFoundRoute } from "@/lib/api/kernel";

/** Any /v1 path no route serves: 404 `resource_not_found` in the error envelope. */
export const { GET, POST, PUT, PATCH, DELETE } = notFoundRoute();
