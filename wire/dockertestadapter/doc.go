// Package dockertestadapter lets a Go suite that starts containers with ory/dockertest certify a
// store bridge container it started, exactly as `loom-conform certify --image` would: the same
// bridge checks, kits, ledger and reports.
//
//	pool, _ := dockertest.NewPool("")
//	res, _ := pool.RunWithOptions(&dockertest.RunOptions{Repository: "acme/store-bridge", Tag: "dev", ExposedPorts: []string{"8080/tcp"}})
//	defer pool.Purge(res)
//	rep, err := certify.Run(ctx, dockertestadapter.Target{Pool: pool, Resource: res}, certify.Config{Kinds: certify.Kinds()})
//	if err != nil || !rep.Certified() { t.Fatal(…) }
//
// The package provides a target.Target (wire/target) and imports nothing of certify.
package dockertestadapter
