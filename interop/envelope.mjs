// The envelope's JSON Schema, as checked into the repository, compiled once
// for the interop tests.
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);

// validateEnvelope reports whether a value fits filter/envelope.schema.json;
// its errors property says why not.
export const validateEnvelope = ajv.compile(
  JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "filter", "envelope.schema.json"), "utf8")),
);
