// Package deploysim will hold seeded, deterministic simulations of rolling upgrades, rollbacks,
// mixed-version fleets, worker crashes, re-dispatch, zombie fencing and cross-code migration
// (spec §3, §6). Nothing here is implemented yet.
package deploysim
