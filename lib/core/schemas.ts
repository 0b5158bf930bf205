import { z } from "zod";
import { paginationSchema } from "@/lib/core/pagination";

export const isoDate = z.iso.datetime({ offset: true });
export const uuidParam = z.uuid();
export { dateTimeInput } from "./datetime";
export { paginationSchema };
