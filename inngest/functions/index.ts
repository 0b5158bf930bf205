import { housekeeping } from "./housekeeping";

/** Every function the app serves. */
export const functions = [housekeeping];
