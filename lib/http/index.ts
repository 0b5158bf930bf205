import { HTTP_OPERATIONS } from "@/lib/registry";
import { createDispatcher } from "./dispatch";

/** `/v1/*`: every HTTP operation of the registry, through the one dispatcher. */
export const dispatch = createDispatcher(HTTP_OPERATIONS);
