// Package vectors will hold the language-neutral fold vectors (JSON data, one file per vector) and
// their runner, in process or against a foreign fold over a line protocol (ADR 0026 T2.3).
// Nothing here is implemented yet.
package vectors
