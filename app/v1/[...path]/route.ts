import { dispatch } from "@/lib/http";

/**
 * The whole /v1 API: the registry's route table decides which operation serves a path (unknown
 * paths are 404, known paths with another method 405 with `Allow`), all in the error envelope.
 */
export const GET = dispatch;
export const POST = dispatch;
export const PUT = dispatch;
export const PATCH = dispatch;
export const DELETE = dispatch;
