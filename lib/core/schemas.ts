import { z } from "zod";
import { paginationSchema } from "@/lib/core/pagination";

export const isoDate = z.iso.datetime({ offset: true });
export const uuidParam = z.uuid();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** True when `value` is written as a UUID (any case): ids in paths, storage keys and references. */
export const isUuid = (value: string): boolean => UUID.test(value);
export { dateTimeInput } from "./datetime";
export { paginationSchema };
