// Package verify holds the deployment rules of spec §5 and §6 that run before anything executes:
// placement-compat (a pinned computeTarget must resolve to a target the dispatcher registers) and
// suspension-safety (a timed suspend with no TimerStore is never woken). The format of a
// deployment file is docs/deployment.md.
//
//	dep, err := verify.ParseDeployment("deploy.json", data)
//	rep := verify.Deployment(dep, targets) // targets from ExecutionDispatcher.Targets
//	if !rep.OK() { ... rep.Findings name the flow, the target and the rule ... }
//
// CheckPlacement is the same rule as a library call for a start path: it refuses before the
// execution's first event is written.
package verify
