import { bucketSuite } from "./bucket-suite";

/** Buckets on the embedded defaults: the filesystem backend and the built-in scanner. */
bucketSuite({ backend: "filesystem", scanner: "builtin" });
