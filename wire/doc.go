// Package wire will hold the JSON-RPC carriers: the store bridge (a server and a client that
// implements the spi interfaces) and the kernel wire ABI (ADR 0026). Nothing here is implemented yet.
package wire
