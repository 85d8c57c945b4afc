// Package sharded is the ShardedEventStore decorator (spec §7): it spreads executions over N
// EventStores by a hash of the execution id. Every per-execution method goes to the id's shard;
// listExecutionsPage merges the shards' pages; copyPrefix across shards reads the source prefix and
// appends it to the target in one batch; sealingCapability is reported only when every shard
// reports the same one. An optional method works only when every shard implements it
// (spi.Capabilities).
//
//	s, err := sharded.New(memory.NewEventStore(), memory.NewEventStore(), memory.NewEventStore())
//	err = s.Append(ctx, "exec-1", []spi.Envelope{e0}, spi.AppendOptions{})
package sharded
