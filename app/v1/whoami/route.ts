/**
 * `/v1/whoami` as a static route: the same dispatcher as the catch-all, which still decides what
 * serves the path (every method goes to it, so a 405 is the API's envelope). Next resolves a static
 * route without its per-request work for a dynamic one (building the catch-all's route regex and
 * parameters), about a fifth of a whoami's CPU; whoami is the kernel's polled read and its benchmark.
 */
export { DELETE, GET, PATCH, POST, PUT } from "../[...path]/route";
