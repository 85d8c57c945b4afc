package spi

// MaxIDBytes is the length, in bytes of UTF-8, up to which every seam takes and keeps apart the
// names it is given — execution ids, branch ids, durable-state keys, content owners, read-model
// models and document ids, package ids (I-STORE-80). A store may refuse a longer name as an
// invalid argument; it never cuts, hashes a prefix of, or otherwise merges two names, whatever
// their length. 1 024 bytes fit a DynamoDB sort key, a PostgreSQL or MySQL index entry and a
// FoundationDB key with room for a suffix.
//
// A name is otherwise any string of Unicode characters, compared as bytes: case, trailing spaces,
// normal forms, delimiters (":", "/", ".", "|", "_", "-", blanks, "%") and their escapes all make
// different names (I-STORE-4). It never holds a lone surrogate: in Go a name is valid UTF-8, and
// over the store bridge a name whose JSON escapes leave a surrogate unpaired is refused before a
// store sees it (I-STORE-81).
const MaxIDBytes = 1024
