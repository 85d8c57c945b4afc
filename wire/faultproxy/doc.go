// Package faultproxy is a TCP proxy that can cut every connection through it on demand: it sits
// between a bridge client and a bridge so a certification run can break the link in the middle of
// a check (`loom-conform certify --faults`).
//
//	p, _ := faultproxy.New("http://127.0.0.1:7450/")
//	defer p.Close()
//	c, _ := bridge.Dial(ctx, p.URL(), bridge.ClientOptions{})
//	p.Cut() // every open connection is closed; new ones still go through
package faultproxy
