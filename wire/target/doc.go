// Package target holds what a certification runs against: the Target interface (start a store
// bridge, describe it), the Identity a report records, a Running bridge and its Pauser, and the
// container pause retry. It sits below certify so that adapters such as wire/dockertestadapter
// provide targets without importing certify; certify re-exports these types.
package target
