import { env } from "@/lib/env";

/** True outside production: pages may then point at development aids (the local outbox). */
export const isDevelopment = () => env.NODE_ENV !== "production";
