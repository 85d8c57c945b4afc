// Package memory is the in-memory reference ExecutionDispatcher: a FIFO queue per execution with
// leases, on an injected clock so a deploy simulation is deterministic.
//
//	d := memory.New(memory.Config{Targets: []string{"default"}, Now: clock})
//	_ = d.Dispatch(ctx, spi.ExecutionPackage{ExecutionID: "x", FlowID: "f"})
//	lease, ok, _ := d.Claim(ctx, spi.ClaimRequest{Worker: "w1", Targets: []string{"default"}, TTL: time.Second})
//	// ... run the execution, Heartbeat while it runs ...
//	_ = d.Ack(ctx, lease)
package memory
